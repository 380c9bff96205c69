// Runtime errors print a console error and execution continues.
echo("start");
undefinedFunction(1, 2);
NoSuchObject.someMethod();
%x = 5;
echo("strlen with no args: [" @ strlen() @ "]");
new NoSuchClass(Thing) { a = 1; };
echo(isObject(Thing));
function deep(%n) { return deep(%n + 1); }
function runaway() { deep(0); echo("not reached"); }
function tryDeep() { runaway(); }
tryDeep();
echo("still running");
while (1) { $spin++; }
echo("after a runaway top-level loop: " @ ($spin > 1000));
