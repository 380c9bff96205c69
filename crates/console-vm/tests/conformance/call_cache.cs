// Call sites cache what they resolved to; every redefinition must still be seen.
function f() { return "a"; }
function g() { return f(); }
echo(g());
function f() { return "b"; }
echo(g());
package P { function f() { return "p" @ Parent::f(); } };
activatePackage(P);
echo(g());
deactivatePackage(P);
echo(g());
function A::m(%t) { return "A"; }
function B::m(%t) { return "B"; }
function callm(%o) { return %o.m(); }
new ScriptObject(oa) { class = A; };
new ScriptObject(ob) { class = B; };
echo(callm(oa) @ callm(ob) @ callm(oa));
function B::m(%t) { return "B2"; }
echo(callm(ob));
function loopsum(%n) { %s = 0; for (%i = 0; %i < %n; %i++) %s = %s + %i * 2; return %s; }
echo(loopsum(10) SPC loopsum(0) SPC loopsum("3x"));
function countdown(%n) { %k = 0; while (%n > 0) { %n--; %k++; if (%k > 100) break; } return %k; }
echo(countdown(5) SPC countdown(-1));
