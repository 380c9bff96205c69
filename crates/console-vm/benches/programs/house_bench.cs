// The whole-process workload for same-run before/after timings of VM changes
// (docs/PERFORMANCE.md, "The house changes"): `tscript house_bench.cs`.
exec("./bench.cs");
function houseBench()
{
   echo(fib(29));
   for (%r = 0; %r < 5; %r++)
      echo(loop1m());
   echo(words());
   echo(calls(new ScriptObject()));
}
houseBench();
