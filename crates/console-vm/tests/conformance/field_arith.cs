// `%o.f = %o.f op y` as one instruction (issue 32, eleventh pass): the field read, the
// operator and the write in place, with the other operand a local after the field, a local
// before it, or a literal (`++`, `+= 1`, `*= 2`). Run on an object in a local by its id (the
// fast loop), by its name and on no object (the interpreter), on a missing field, on text
// and double values, across 10^6, on a registered field, and on objects whose fields lie in
// different orders (the site's cached position is wrong every other time).
new ScriptObject(Acc) { n = 1; };
function shapes(%o, %k)
{
   %o.n = %o.n + %k;
   %a = %o.n;
   %o.n = %o.n - %k;
   %b = %o.n;
   %o.n = %k - %o.n;
   %c = %o.n;
   %o.n = %k * %o.n;
   %d = %o.n;
   %o.n = %o.n / %k;
   %e = %o.n;
   %o.n++;
   %f = %o.n;
   %o.n--;
   %o.n += %k;
   %o.n -= 2;
   %o.n *= 3;
   %o.n /= 4;
   %o.m = %o.m + %k;
   %o.big = %o.big + 40000;
   %o.wide = %o.wide * 70000;
   return %a SPC %b SPC %c SPC %d SPC %e SPC %f SPC %o.n SPC %o.m SPC %o.big SPC %o.wide;
}
echo(shapes(Acc.getId(), 3));
echo(shapes(Acc, 3));
echo(shapes("Acc", 0.5));
echo(shapes("NoSuchObject", 3) @ "|" @ NoSuchObject.n @ "|");
echo(shapes(Acc.getId(), "") @ "|");
echo(shapes(Acc.getId(), "2x") @ "|");
function text(%o)
{
   %o.s = "12abc";
   %o.s = %o.s + 1;
   %o.t = "word";
   %o.t += 2;
   %o.u = "1e3";
   %o.u *= 2;
   %o.z = -0;
   %o.z = %o.z * -1;
   %o.q = 0;
   %o.q = %o.q * -5;
   return %o.s SPC %o.t SPC %o.u SPC %o.z SPC %o.q;
}
echo(text(Acc.getId()));
echo(text(Acc));
function counter(%o, %n)
{
   %o.c = 999990;
   for (%i = 0; %i < %n; %i++)
      %o.c++;
   %o.h = 2147483000;
   for (%i = 0; %i < %n; %i++)
      %o.h += 100;
   return %o.c SPC %o.h;
}
echo(counter(Acc.getId(), 20));
function orders(%n)
{
   %p = new ScriptObject() { a = 1; b = 2; };
   %q = new ScriptObject() { b = 20; x = 5; a = 10; };
   %r = new ScriptObject();
   for (%i = 0; %i < %n; %i++)
   {
      %o = (%i % 3 == 0) ? %p : ((%i % 3 == 1) ? %q : %r);
      %o.a = %o.a + %i;
      %o.b += 1;
   }
   %t = %p.a SPC %p.b SPC %q.a SPC %q.b SPC %r.a SPC %r.b;
   %p.delete();
   %q.delete();
   %r.delete();
   return %t;
}
echo(orders(10));
function registered(%o)
{
   %o.superClass = %o.superClass + 5;
   %o.superClass += 1;
   return %o.superClass;
}
new ScriptObject(Reg);
echo(registered(Reg.getId()) SPC registered(Reg));
Reg.delete();
Acc.delete();
