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

counters();
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
