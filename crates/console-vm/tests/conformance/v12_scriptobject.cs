// V12 reference page Console, "Namespaces": ScriptObject class/superClass and Parent::.
new ScriptObject(MyObject) {
class = Bar;
superClass = Foo;
};
function Bar::doSomething(%this)
{
echo("Hi!");
}
MyObject.doSomething();
function Foo::doSomething(%this)
{
echo("Hi! Foo");
}
function Bar::go(%this)
{
%this.doSomething();
Parent::doSomething(%this);
}
MyObject.go();
