// Namespaces, Parent:: along class chains, packages stacking, V12 deactivate semantics.
function SimObject::describe(%this) { return "SimObject"; }
function ScriptObject::describe(%this) { return "ScriptObject>" @ Parent::describe(%this); }
function Base::describe(%this) { return "Base>" @ Parent::describe(%this); }
function Derived::describe(%this) { return "Derived>" @ Parent::describe(%this); }

$o = new ScriptObject() { class = Derived; superClass = Base; };
echo($o.describe());
echo(Derived::describe($o));
function greet() { return "base"; }
package A { function greet() { return "A(" @ Parent::greet() @ ")"; } };
package B { function greet() { return "B(" @ Parent::greet() @ ")"; } };
package C { function greet() { return "C(" @ Parent::greet() @ ")"; } };
echo(greet());
activatePackage(A);
activatePackage(B);
activatePackage(C);
echo(greet());
deactivatePackage(B);
echo(greet());
activatePackage(C);
echo(greet());
echo(isPackage(A), isPackage(Nope), isFunction("greet"), isFunction("Derived::describe"), isFunction("nope"));
deactivatePackage(A);
echo(greet());
package P { function ScriptObject::describe(%this) { return "P>" @ Parent::describe(%this); } };
activatePackage(P);
echo($o.describe());
deactivatePackage(P);
echo($o.describe());
function Thing::hello(%this, %a) { return "hello " @ %a @ " from " @ %this; }
new ScriptObject(Named) { class = Thing; };
echo(Named.hello("x"));
echo(Named.call("hello", "y"));
echo(Named.isMethod("hello"), Named.isMethod("nope"));
echo(call("greet"));
