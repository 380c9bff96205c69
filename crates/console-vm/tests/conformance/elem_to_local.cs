// `%d = $a[i]` as one instruction (issue 32, eleventh pass): the element copied into the
// local, with the index on the stack (`$a[%i % 5]`) or in a local (`$a[%i]`). Numbers,
// text, unset elements, text indexes (the interpreter's path: a leading zero, a sign,
// letters, a fraction), an index past the dense part, a `switch$` on an element, and the
// local overwritten over a string it held.
$w[0] = "fire";
$w[1] = 7;
$w[2] = 2.5;
$w[4] = "Look";
$w["x"] = "by text";
$w["07"] = "seven";
$w[-1] = "minus";
$w[500000] = "far";
function load(%n)
{
   %t = "";
   for (%i = 0; %i < %n; %i++)
   {
      %a = $w[%i % 5];
      %b = $w[%i];
      %t = %t @ "[" @ %a @ "|" @ %b @ "]";
   }
   return %t;
}
echo(load(7));
function texts()
{
   %k = "x";
   %a = $w[%k];
   %k = "07";
   %b = $w[%k];
   %c = $w["07"];
   %k = -1;
   %d = $w[%k];
   %e = $w[1.5];
   %f = $w[500000];
   %k = 500000;
   %g = $w[%k];
   %h = $w[%k + 1];
   return %a SPC %b SPC %c SPC %d SPC "(" @ %e @ ")" SPC %f SPC %g SPC "(" @ %h @ ")";
}
echo(texts());
function cmds(%n)
{
   %t = 0;
   for (%i = 0; %i < %n; %i++)
   {
      switch$ ($w[%i % 5])
      {
         case "FIRE":
            %t += 1;
         case "look":
            %t += 10;
         case "":
            %t += 100;
         default:
            %t += 1000;
      }
   }
   return %t;
}
echo(cmds(10));
function overwrite()
{
   %s = "held" @ " string";
   %s = $w[0];
   %u = %s;
   %s = $w[3];
   return %u @ "|" @ %s @ "|";
}
echo(overwrite());
