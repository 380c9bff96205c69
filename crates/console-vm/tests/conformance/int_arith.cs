// `+ - *` and steps of integers: the fast loop keeps them integers below 10^6 in magnitude
// (docs/PERFORMANCE.md, issue 32, ninth pass); what prints, indexes and compares must be
// what V12's doubles give (this file's `.out` was written by the build before that change).

function counters()
{
   for (%i = 999997; %i < 1000003; %i++)
      echo("up " @ %i SPC %i + 0 SPC %i - 1 SPC %i * 1);
   for (%i = -999997; %i > -1000003; %i--)
      echo("down " @ %i SPC %i + 0 SPC %i * 1);
   for (%i = 999990; %i < 1000010; %i += 4)
      echo("by four " @ %i);
   %j = 999998;
   %k = %j++;
   echo("post " @ %k SPC %j);
   %k = %j++;
   echo("post " @ %k SPC %j);
   %k = %j++;
   echo("post " @ %k SPC %j);
}

function products(%a, %b)
{
   echo(%a SPC %b @ ": " @ %a + %b SPC %a - %b SPC %a * %b SPC %b - %a SPC %a * 0 SPC 0 * %b);
}

function zeros()
{
   %z = 0;
   %m = -5;
   %p = %z * %m;
   echo("zero times minus: " @ %p SPC %m * %z SPC %z * -1 SPC -1 * %z SPC %z * 7);
   %q = %z - 0;
   echo("zero minus zero: " @ %q SPC 0 - %z SPC %z + 0);
   echo("neg: " @ -%z SPC -%p);
   %s = %p + 0;
   echo("minus zero plus zero: " @ %s);
}

function wide()
{
   %big = 2147483647;
   echo("i32 edge: " @ %big + 1 SPC %big * 2 SPC %big - -1 SPC ((%big + 1) & 255) SPC ((%big * 2 + 5) | 0) SPC ((%big * 4) ^ 0));
   %huge = 9007199254740993;
   echo("past 2^53: " @ %huge + 0 SPC %huge - 1 SPC %huge * 1);
   %t = 1000;
   echo("products: " @ %t * %t SPC %t * 999 SPC %t * -999 SPC -%t * %t);
   echo("divides: " @ 7 / 2 SPC 8 / 2 SPC %t / %t SPC 0 / -3);
}

function indexes()
{
   for (%i = 999998; %i < 1000002; %i++)
      $ia[%i] = %i + 1;
   echo("by text: " @ $ia999998 SPC $ia999999 SPC $ia1000000 SPC $ia["1e+06"] SPC $ia[1000000] SPC $ia1000001);
   for (%i = 0; %i < 4; %i++)
      %la[%i * 2] = %i - 1;
   echo("local: " @ %la[0] SPC %la[2] SPC %la[4] SPC %la[6] SPC %la[1]);
   %o = new ScriptObject() { n = 0; };
   for (%i = 0; %i < 5; %i++)
      %o.n = %o.n + %i * 3;
   echo("field: " @ %o.n);
   %o.delete();
}

function mixed()
{
   %f = 1.5;
   %i = 2;
   %s = "3";
   %e = "";
   echo("mixed: " @ %f + %i SPC %i + %s SPC %s * %i SPC %e + %i SPC %i - %e SPC %i * %f);
   %x = 10;
   %x += %i;
   %x -= 5;
   %x *= 3;
   echo("compound: " @ %x);
   %c = 0;
   for (%i = 0; %i < 10; %i++)
      if (%i * %i - 3 * %i == 10)
         %c = %c + 1;
   echo("compare: " @ %c);
   switch (%i - 2)
   {
      case 8:
         echo("switch: eight");
      default:
         echo("switch: other");
   }
}

// An arithmetic result only an integer operator reads (the compiler's `W` forms): around
// 2^31, 2^32 and -2^31, where V12's conversion to a 32-bit integer wraps or saturates.
function widened(%y, %z, %s)
{
   %x = 255;
   echo(%y SPC %z @ ": " @ ((%y + %z) & -1) SPC ((%y - %z) % 1000000007) SPC ((%y * %z) | 0)
      SPC (5 & (%y + %z)) SPC (%x ^ (%y * %z)) SPC ((%y + %z) << %s) SPC ((%y * %z) >> %s)
      SPC ((%y - %z) ^ 0) SPC ((%y + 1) & 65535) SPC (~(%y * %z)));
   %h = 0;
   for (%i = 0; %i < 50; %i++)
   {
      %h = ((%h << 5) + %i + %y) & 65535;
      %h = %h ^ (%i % 7) | 1;
   }
   echo("  hash " @ %h SPC (%y * %z) + 0);
}

counters();
widened(3, 4, 1);
widened(2147483647, 1, 1);
widened(2147483647, 2147483647, 2);
widened(4294967295, 0, 3);
widened(65536, 65536, 1);
widened(65535, 65537, 0);
widened(-65536, 32768, 1);
widened(-65536, 32769, 1);
widened(-2147483648, -1, 1);
widened(-2147483648, 1, 1);
widened(-2147483648, 2147483647, 31);
widened(3000000000, 2, 1);
widened(1000000, 1000000, 1);
widened(-7, 0, 2);
widened(0, -7, 2);
widened("12abc", 3.5, 1);
products(3, 4);
products(-999999, 1);
products(999999, 1);
products(500000, 2);
products(-500000, 2);
products(1000, -1000);
products(0, -7);
zeros();
wide();
indexes();
mixed();
