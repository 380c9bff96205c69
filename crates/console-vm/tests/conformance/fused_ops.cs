// Integer operators on locals and literals (fused forms), compare-with-literal jumps, and
// in-place appends of a chain of concatenations (issue 32).
function f(%a, %b)
{
   %r = %a % %b;
   %r = %r SPC (%a % 7) SPC (%a & 12) SPC (%a | %b) SPC (%a ^ 5) SPC (%a << 2) SPC (%a >> 1);
   return %r;
}
echo(f(45, 7));
echo(f(-45, 7));
echo(f(10, 0));
echo(f(7.9, 2));
function isEven(%n) { if (%n % 2 == 0) return "even"; return "odd"; }
echo(isEven(4) SPC isEven(7) SPC isEven("12abc"));
function hash(%n)
{
   %h = 0;
   for (%i = 0; %i < %n; %i++)
   {
      %h = ((%h << 5) + %i) & 65535;
      %h = %h ^ (%i % 7) | 1;
   }
   return %h;
}
echo(hash(1000));
function selfcat()
{
   %s = "ab";
   %s = %s @ "-" @ %s;
   %t = "x";
   %t = %t SPC %t TAB "y";
   return %s SPC %t;
}
echo(selfcat());
function keep()
{
   %u = "1";
   %v = (%u = %u @ "2" @ "3");
   %w = 5;
   %w = %w @ %u SPC 1 + 1 NL "z";
   return %v SPC %u SPC %w;
}
echo(keep());
// `switch$` and `$=` / `!$=` against literals.
function sw(%x)
{
   switch$ (%x)
   {
      case "Fire":
         return 1;
      case "5":
         return 2;
      case "":
         return 3;
      default:
         return 0;
   }
}
echo(sw("fire") SPC sw("FIRE") SPC sw(5) SPC sw("") SPC sw("x") SPC sw(2 + 3));
function ne(%x) { if (%x !$= "a") return "ne"; return "eq"; }
echo(ne("A") SPC ne("b"));
