// SimObject, SimSet, SimGroup, ids, names, paths, fields, delete, onAdd/onRemove.
function ScriptObject::onAdd(%this) { echo("onAdd " @ %this.getName()); }
function ScriptObject::onRemove(%this) { echo("onRemove " @ %this.getName()); }
$g = new SimGroup(MyGroup) {
   new ScriptObject(Child1) { value = 1; };
   new ScriptObject(Child2) { value = 2; list[0] = "a"; list[1, 2] = "b"; };
   new SimGroup(Inner) {
      new ScriptObject(Leaf) {};
   };
};
echo(MyGroup.getCount());
echo(MyGroup.getObject(1).getName());
echo(Child2.value + Child1.value);
echo(Child2.list0 SPC Child2.list1_2);
echo(nameToID("MyGroup/Inner/Leaf") == Leaf.getId());
echo(Leaf.getGroup().getName());
echo(isObject("MyGroup/Inner/Leaf"), isObject("MyGroup/Nope"), isObject(""), isObject(0));
echo(MyGroup.getClassName(), " ", Child1.getClassName());
$s = new SimSet(MySet);
MySet.add(Child1, Leaf);
echo(MySet.getCount(), " ", MySet.isMember(Leaf), " ", MySet.isMember(Child2));
MySet.listObjects();
Child1.setName("Renamed");
echo(isObject(Child1), isObject(Renamed));
Renamed.dynField = "dyn";
echo(Renamed.dynField);
"Renamed".other = 7;
echo(Renamed.other);
MyGroup.delete();
echo(isObject(Leaf), isObject(MyGroup), " set now ", MySet.getCount());
$x = new SimObject();
echo(isObject($s));
$obj = new SimObject(Plain);
Plain.field = "v";
echo($obj.field);
Plain.field = "";
echo("[" @ Plain.field @ "]");
echo($obj.getId() == nameToID(Plain));
echo(nameToID(NoSuchThing));
