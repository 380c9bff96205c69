function makeMany(%n)
{
   for (%i = 0; %i < %n; %i++)
   {
      %dir = "0.5 0.5 0";
      %o = new ScriptObject() {
         dataBlock = 5;
         initialPosition = VectorAdd("1 2 3", VectorScale(%dir, 1.2));
         initialVelocity = VectorScale(%dir, 25);
         sourceObject = 7;
      };
      %o.delete();
   }
}
makeMany(100000);
