// The TorqueScript side of `benches/scripts_vs_lua.rs`: programs shaped like game scripts
// (issue 32). The Lua side is `scripts.lua`, written as idiomatic Lua 5.4.

// ---- the five shapes of issue 32 ----
function fib(%n) { if (%n < 2) return %n; return fib(%n - 1) + fib(%n - 2); }

function primes(%max)
{
   %count = 0;
   for (%n = 2; %n <= %max; %n++)
   {
      %isPrime = 1;
      for (%d = 2; %d * %d <= %n; %d++)
      {
         if (%n % %d == 0)
         {
            %isPrime = 0;
            break;
         }
      }
      if (%isPrime)
         %count++;
   }
   return %count;
}

function sieve(%n)
{
   for (%i = 0; %i <= %n; %i++)
      $s[%i] = 1;
   $s[0] = 0;
   $s[1] = 0;
   for (%i = 2; %i * %i <= %n; %i++)
      if ($s[%i])
         for (%j = %i * %i; %j <= %n; %j += %i)
            $s[%j] = 0;
   %c = 0;
   for (%i = 0; %i <= %n; %i++)
      if ($s[%i])
         %c++;
   return %c;
}

function Counter::add(%this, %k) { %this.n = %this.n + %k; }
function methods(%obj, %count)
{
   %obj.n = 0;
   for (%i = 0; %i < %count; %i++)
      %obj.add(1);
   return %obj.n;
}

function concat(%count)
{
   %t = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %s = "word" @ %i;
      %t += strlen(%s);
   }
   return %t;
}

// ---- the broad suite ----
// A global array with string indices (a table of names).
function strIndex(%count)
{
   for (%i = 0; %i < 100; %i++)
      $tbl["key" @ %i] = %i;
   %t = 0;
   for (%i = 0; %i < %count; %i++)
      %t += $tbl["key" @ (%i % 100)];
   return %t;
}

// A local array with integer indices.
function localArray(%count)
{
   for (%i = 0; %i < %count; %i++)
      %a[%i] = %i * 2;
   %t = 0;
   for (%i = 0; %i < %count; %i++)
      %t += %a[%i];
   return %t;
}

// A two-index global array, `$grid[%i, %j]`.
function grid(%w)
{
   for (%i = 0; %i < %w; %i++)
      for (%j = 0; %j < %w; %j++)
         $grid[%i, %j] = %i + %j;
   %t = 0;
   for (%i = 0; %i < %w; %i++)
      for (%j = 0; %j < %w; %j++)
         %t += $grid[%i, %j];
   return %t;
}

// An array in an object's field, `%obj.v[%i]`.
function fieldArray(%obj, %count)
{
   for (%i = 0; %i < %count; %i++)
      %obj.v[%i] = %i;
   %t = 0;
   for (%i = 0; %i < %count; %i++)
      %t += %obj.v[%i];
   return %t;
}

// Integer arithmetic: `%`, `<<`, `&`, `|`, `^`.
function intOps(%count)
{
   %h = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %h = ((%h << 5) + %i) & 65535;
      %h = %h ^ (%i % 7) | 1;
   }
   return %h;
}

// String building with `@`, `SPC` and `TAB`.
function build(%count)
{
   %s = "";
   for (%i = 0; %i < %count; %i++)
      %s = %s @ "x" SPC %i TAB "y";
   return strlen(%s);
}

// Word functions over a sentence.
function words(%count)
{
   %s = "the";
   for (%i = 0; %i < %count; %i++)
      %s = %s SPC "w" @ %i;
   %n = getWordCount(%s);
   %t = 0;
   for (%i = 0; %i < %n; %i++)
      %t += strlen(getWord(%s, %i));
   return %t;
}

// `switch$` on commands.
function commands(%count)
{
   $cmd[0] = "fire";
   $cmd[1] = "jump";
   $cmd[2] = "crouch";
   $cmd[3] = "use";
   $cmd[4] = "look";
   %t = 0;
   for (%i = 0; %i < %count; %i++)
   {
      switch$ ($cmd[%i % 5])
      {
         case "fire":
            %t += 1;
         case "jump":
            %t += 2;
         case "crouch" or "prone":
            %t += 3;
         case "use":
            %t += 4;
         default:
            %t += 5;
      }
   }
   return %t;
}

// Datablock fields read in a tick callback over a set of players.
datablock SimDataBlock(LightArmor) { maxSpeed = 12; accel = 0.5; drag = 0.01; };
datablock SimDataBlock(HeavyArmor) { maxSpeed = 7; accel = 0.25; drag = 0.02; };

function Player::tick(%this)
{
   %db = %this.dataBlock;
   %v = %this.vel + %db.accel - %this.vel * %db.drag;
   if (%v > %db.maxSpeed)
      %v = %db.maxSpeed;
   %this.vel = %v;
   %this.pos = %this.pos + %v;
}

function makePlayers(%n)
{
   for (%i = 0; %i < %n; %i++)
   {
      %p = new ScriptObject() { class = Player; };
      %p.dataBlock = (%i & 1) ? LightArmor.getId() : HeavyArmor.getId();
      %p.vel = 0;
      %p.pos = 0;
      $player[%i] = %p;
   }
   $playerCount = %n;
}

function ticks(%count)
{
   for (%t = 0; %t < %count; %t++)
      for (%i = 0; %i < $playerCount; %i++)
         $player[%i].tick();
   return mFloor($player[0].pos);
}
