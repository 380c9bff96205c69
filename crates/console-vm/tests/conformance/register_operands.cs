// Instructions that read their operands from locals in place (issue 32): fields of an object
// in a local, `%obj.v[%i]` and `$a[%i, %j]` with locals for object and indexes, a `for` step
// fused with its test against a local bound, and `if (%x)` on a local. Each shape is also run
// where the fast loop must hand it to the interpreter (an object named by its name, a text
// index, a missing object).
new ScriptObject(Box) { n = 1; };
function fields(%o, %k)
{
   %o.n = %o.n + %k;
   %o.m = %k * 2;
   %o.n += 10;
   %x = %o.t = "t" @ %k;
   return %o.n SPC %o.m SPC %o.t SPC %x;
}
echo(fields(Box, 3));
echo(fields(Box.getId(), 3));
echo(fields("NoSuchObject", 3) @ "|");
function swap(%o)
{
   // The value changes `%o`: the field goes to the object `%o` named before.
   %o.w = (%o = Box);
   return %o;
}
new ScriptObject(Other);
echo(swap(Other) SPC Other.w SPC Box.w @ "|");
function fieldArray(%o, %n)
{
   for (%i = 0; %i < %n; %i++)
      %o.v[%i] = %i * %i;
   %t = 0;
   for (%i = 0; %i < %n; %i++)
      %t += %o.v[%i];
   %k = "a";
   %o.v[%k] = "text";
   return %t SPC %o.v[%k] SPC %o.va SPC %o.v3 SPC %o.v[2.5] @ "|";
}
echo(fieldArray(Box, 5));
echo(fieldArray("Box", 4));
function grid(%w)
{
   for (%i = 0; %i < %w; %i++)
      for (%j = 0; %j < %w; %j++)
         $rg[%i, %j] = %i @ "/" @ %j;
   %t = "";
   for (%i = 0; %i < %w; %i++)
      for (%j = 0; %j < %w; %j++)
         %t = %t SPC $rg[%i, %j];
   %a = "x";
   %b = -1;
   $rg[%a, %b] = "named";
   return %t SPC $rg1_2 SPC $rgx_ SPC $rg["x", -1] SPC $rg[%a, %b];
}
echo(grid(3));
function loops(%n, %m)
{
   %s = "";
   for (%i = 0; %i <= %n; %i++)
      %s = %s @ %i;
   for (%i = %n; %i > %m; %i--)
      %s = %s SPC %i;
   for (%j = 1; %j < %n; %j += %m)
      %s = %s SPC "j" @ %j;
   for (%j = 1; %j <= %n; %j = %j * %m)
      %s = %s SPC "p" @ %j;
   for (%d = 2; %d * %d <= %n; %d++)
      %s = %s SPC "d" @ %d;
   return %s;
}
echo(loops(10, 3));
echo(loops("4x", "2"));
function truth(%x)
{
   if (%x)
      return "yes";
   return "no";
}
echo(truth(1) SPC truth(0) SPC truth("") SPC truth("abc") SPC truth("1abc") SPC truth(0.5) SPC truth("0.0") SPC truth(-2));
function untilFalse(%x)
{
   %c = 0;
   while (!%x)
   {
      %c++;
      %x = %c >= 3;
   }
   return %c;
}
echo(untilFalse(0) SPC untilFalse(1));
function elemTruth(%i)
{
   if ($et[%i])
      return "yes";
   return "no";
}
$et[1] = 1;
$et[2] = "abc";
$et["k"] = "2x";
$et3 = 0.25;
echo(elemTruth(1) SPC elemTruth(2) SPC elemTruth("k") SPC elemTruth(3) SPC elemTruth(4) SPC elemTruth("1"));
function copyField(%o, %x)
{
   %o.c = %x;
   %d = %o.c;
   %e = %o.missing;
   return %d @ "|" @ %e @ "|";
}
echo(copyField(Box, 7) SPC copyField("Box", "seven") SPC Box.c SPC copyField(0, 1));
$bound = "3x";
function globalBound()
{
   %s = "";
   for (%i = 0; %i < $bound; %i++)
      %s = %s @ %i;
   for (%i = 5; %i >= $lowBound; %i -= 2)
      %s = %s SPC %i;
   return %s;
}
echo(globalBound());
// Field sites whose cache is rewritten on every pass (objects of three field layouts in
// turn): the fast loop writes a site's hint into the instruction while it runs.
new ScriptObject(LayoutA) { a = 1; b = 2; c = 3; };
new ScriptObject(LayoutB) { c = 30; b = 20; };
new ScriptObject(LayoutC) { x = 0; y = 0; z = 0; w = 0; c = 300; };
$lay[0] = LayoutA.getId();
$lay[1] = LayoutB.getId();
$lay[2] = LayoutC.getId();
function flip(%n)
{
   %t = 0;
   for (%i = 0; %i < %n; %i++)
   {
      %o = $lay[%i % 3];
      %o.c = %o.c + 1;
      %k = %i % 3 + %i % 2;
      %o.v[%k] = %i;
      %t += %o.c + %o.v[%i % 3];
   }
   return %t SPC LayoutA.c SPC LayoutB.c SPC LayoutC.c;
}
echo(flip(30));
