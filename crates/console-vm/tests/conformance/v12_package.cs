// V12 reference page Console, "Packages" (note: no semicolon after the package, as in V12).
function foo()
{
echo("foo!");
}
package SamplePackage
{
function foo()
{
echo("Haha!");
Parent::foo();
}
}
foo();
ActivatePackage(SamplePackage);
foo();
