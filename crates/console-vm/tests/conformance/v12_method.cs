// V12 reference page Console: a script method on SimObject, fields and dynamic fields.
function SimObject::helloWorld(%this)
{
echo("Hello World!");
echo("Called on object: " @ %this);
}
$object = new SimObject();
$object.helloWorld();
function bar()
{
   %obj = new ScriptObject(MySampleObject);
   %obj.someVariable = 100;
   echo(%obj.someVariable);
   echo(%obj.getName());
}
bar();
function foo()
{
   %object = new ScriptObject();
   %object.scriptVariable = "Hello World!";
   echo(%object.scriptVariable);
}
foo();
$someGlobal = "This is some global.";
function vars(%local1, %local2)
{
   %local3 = $someGlobal;
   echo(%local3);
}
vars();
