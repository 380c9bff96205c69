// if/else, while, for, do/while, switch, switch$, break, continue, return, ternary.
function loops()
{
   for (%i = 0; %i < 5; %i++)
   {
      if (%i == 1)
         continue;
      if (%i == 4)
         break;
      echo("for " @ %i);
   }
   %j = 3;
   while (%j > 0)
      echo("while " @ %j--);
   %k = 0;
   do {
      echo("do " @ %k);
      %k += 2;
   } while (%k < 5);
   for (%x = 0; %x < 3; %x++)
      for (%y = 0; %y < 3; %y++)
      {
         if (%y > %x) break;
         %s = %s @ %x @ %y @ " ";
      }
   echo(%s);
}
loops();
function sw(%v)
{
   switch (%v)
   {
      case 1:
         return "one";
      case 2 or 3:
         return "two or three";
      default:
         return "other";
   }
}
echo(sw(1), ",", sw(3), ",", sw(9));
function sws(%v)
{
   switch$ (%v)
   {
      case "Apple":
         %r = "fruit";
      case "carrot" or "Pea":
         %r = "veg";
      default:
         %r = "unknown";
   }
   return %r;
}
echo(sws("apple"), ",", sws("PEA"), ",", sws("x"));
function breakInSwitch()
{
   for (%i = 0; %i < 10; %i++)
   {
      switch (%i)
      {
         case 3:
            break;
      }
   }
   return %i;
}
echo("switch break leaves the loop at " @ breakInSwitch());
function noReturn() { %x = "leak"; }
echo("[" @ noReturn() @ "]");
function ops()
{
   %a = 10;
   %a += 5; echo(%a);
   %a -= 3; echo(%a);
   %a *= 2; echo(%a);
   %a /= 4; echo(%a);
   %a = 17;
   %a %= 5; echo(%a);
   %a |= 8; echo(%a);
   %a &= 12; echo(%a);
   %a ^= 5; echo(%a);
   %a <<= 2; echo(%a);
   %a >>= 1; echo(%a);
   %b = %c = 4;
   echo(%b SPC %c);
   echo(%a++ SPC %a);
   %t = "x";
   %t = %t @ "y";
   %t = %t SPC "z";
   %t = %t TAB "w";
   %t = %t NL "v";
   echo(strreplace(strreplace(%t, "\t", "<tab>"), "\n", "<nl>"));
}
ops();
function args(%a, %b, %c) { return %a @ "|" @ %b @ "|" @ %c; }
echo(args(1));
echo(args(1, 2, 3, 4));
