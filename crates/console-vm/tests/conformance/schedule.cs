// schedule / cancel / isEventPending / getSimTime on the simulated clock.
function tick(%n)
{
   echo("tick " @ %n @ " at " @ getSimTime());
   if (%n < 3)
      schedule(100, 0, tick, %n + 1);
}
schedule(50, 0, tick, 1);
$e = schedule(10, 0, echo, "cancelled!");
echo(isEventPending($e));
cancel($e);
echo(isEventPending($e));
function ScriptObject::ping(%this, %msg) { echo("ping " @ %msg @ " at " @ getSimTime()); }
$o = new ScriptObject();
$o.schedule(500, ping, "hello");
$gone = new ScriptObject();
$gone.schedule(20, ping, "never");
$gone.delete();
schedule(1000, 0, quitNow);
schedule(2000, 0, echo, "after quit: not printed");
function quitNow() { echo("quitting at " @ getSimTime()); quit(); }
echo("scheduled at " @ getSimTime());
