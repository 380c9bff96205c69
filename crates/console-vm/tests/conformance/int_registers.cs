// Integer operators whose results stay in registers (issue 32, tenth pass): `%x = %y op k`,
// `%x = %y op %z`, `%b ^ (%a % 5)` and `(%a << 3) + %b` on integers, doubles, text, empties
// and the 32-bit edges. The .out is the output of the build before those forms (a34c894).
function f(%a, %b, %c)
{
   %x = %a % 7;
   %y = %a & %b;
   %z = %b ^ (%a % 5);
   %w = (%a << 3) + %b;
   %v = (%a >> 1) - %c;
   %u = (%a | 1) * %c;
   %t = (%a & 255) / %c;
   %s = ((%h << 5) + %a) & 65535;
   %r = %a ^ (%b % 7) | 1;
   %q = ((%a << 20) * %b) & 65535;
   %p = (%a % 3) * %b;
   echo(%x SPC %y SPC %z SPC %w SPC %v SPC %u SPC %t SPC %s SPC %r SPC %q SPC %p);
   echo((%a << 4) + %b @ "|" @ (%b ^ (%a & 3)) @ "|" @ ((%a % 0) + %c));
   %m = %a << %b;
   %n = %b % %a;
   echo(%m SPC %n);
}
function all()
{
%vals = "0 1 -1 7 13 1000 999999 1000000 -1000000 2147483647 -2147483648 4294967295 1.5 -2.75 1e10 abc 12abc";
for (%i = 0; %i < getWordCount(%vals); %i++)
   for (%j = 0; %j < getWordCount(%vals); %j += 3)
      f(getWord(%vals, %i), getWord(%vals, %j), getWord(%vals, (%i + %j) % 17));
for (%i = -40; %i < 40; %i += 3)
   f(%i, %i * 7 - 5, %i * 2.5);
}
all();
f("", "", "");
f(3, "", 2);
function g(%n, %from)
{
   %h = 0;
   for (%i = %from; %i < %n; %i++)
   {
      %h = ((%h << 5) + %i) & 65535;
      %h = %h ^ (%i % 7) | 1;
      %k = (%h << 13) + %i * 3;
      %m = (%h << 13) + %i;
   }
   echo(%h SPC %k SPC %m);
}
g(1000, 0); g(70000, 0); g(1000005, 999990); g(2147483650, 2147483640);
