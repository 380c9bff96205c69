// eval, exec with relative paths, locals visible to eval, trace, export, deleteVariables.
eval("echo(\"from eval\");");
function evalLocals()
{
   %x = 41;
   eval("%x = %x + 1;");
   return %x;
}
echo(evalLocals());
eval("function madeByEval() { return \"made\"; }");
echo(madeByEval());
eval("this is not valid");
echo("after bad eval");
exec("included/helper.cs");
echo(helperFunction(2));
echo(exec("included/missing.cs"));
echo(exec("../outside.cs"));
function traced(%a) { return %a * 2; }
trace(true);
traced(21);
trace(false);
$Pref::A = 1;
$Pref::B = "two";
$Other = 3;
export("$Pref::*");
deleteVariables("$Pref::*");
echo("[" @ $Pref::A @ $Pref::B @ "]" @ $Other);
