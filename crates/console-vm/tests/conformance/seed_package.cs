// Seed page Console, "Packages" (note: no semicolon after the package, as in the seed).
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
