// save() writes script that recreates a group tree; dump() and tree().
new SimGroup(SaveMe) {
   new ScriptObject(Kid) { class = KidClass; note = "say \"hi\""; };
   new SimSet(KidSet) {};
};
echo(SaveMe.save("saved_tmp.cs"));
SaveMe.delete();
exec("saved_tmp.cs");
echo(isObject(SaveMe), " ", SaveMe.getCount(), " ", Kid.note, " ", Kid.class);
function KidClass::m(%this) {}
Kid.dump();
tree(SaveMe);
