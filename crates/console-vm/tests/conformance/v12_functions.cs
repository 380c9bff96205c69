// V12 reference page Console, "Functions": the script form of helloWorld.
function helloWorld ()
{
echo("Hello World!");
}
helloWorld();
