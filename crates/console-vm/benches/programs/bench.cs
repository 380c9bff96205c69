// The TorqueScript side of the VM-vs-Lua benchmark; also run by examples/loopbench.rs.
function fib(%n) { if (%n < 2) return %n; return fib(%n - 1) + fib(%n - 2); }
function loop1m() { %s = 0; for (%i = 0; %i < 1000000; %i++) %s = %s + %i * 2; return %s; }
function words()
{
   %s = "w";
   for (%i = 0; %i < 100000; %i++)
      %s = %s SPC %i;
   %n = getWordCount(%s);
   %t = 0;
   for (%i = 0; %i < %n; %i++)
      %t = %t + strlen(getWord(%s, %i));
   return %t;
}
function ScriptObject::inc(%this, %x) { return %x + 1; }
function calls(%o) { %v = 0; for (%i = 0; %i < 100000; %i++) %v = %o.inc(%v); return %v; }
