// Probes of hidden shapes (issue 32): the suite's shapes written the other ways a Tribes 2-era
// script author writes them (`while` loops, globals as counters, `$a[%i, %j]`, string keys,
// arrays of objects, methods with several arguments, `Parent::`, datablock reads, integer
// operators in `if` chains, `switch`, string and word functions, float and vector math).
// The Lua side is `probes.lua`, idiomatic Lua 5.4. Each program takes one count and returns a
// number; `probeSetup()` makes the objects once. Run by `examples/probes.rs`.

// ---- trial division and sieves ----
// Primes by trial division with `while`, `continue` and `break`, counted in a global.
function pPrimesWhile(%max)
{
   $primeCount = 0;
   %n = 1;
   while (%n < %max)
   {
      %n++;
      if (%n > 2 && %n % 2 == 0)
         continue;
      %d = 3;
      %prime = true;
      while (%d * %d <= %n)
      {
         if (%n % %d == 0)
         {
            %prime = false;
            break;
         }
         %d += 2;
      }
      if (%prime)
         $primeCount++;
   }
   return $primeCount;
}

// A sieve in a local array, `while` loops, `!` on the element.
function pSieveLocal(%n)
{
   %i = 2;
   while (%i <= %n)
   {
      %s[%i] = true;
      %i++;
   }
   %i = 2;
   while (%i * %i <= %n)
   {
      if (%s[%i])
      {
         %j = %i * %i;
         while (%j <= %n)
         {
            %s[%j] = false;
            %j += %i;
         }
      }
      %i++;
   }
   %c = 0;
   for (%i = 2; %i <= %n; %i++)
      if (!%s[%i])
         continue;
      else
         %c++;
   return %c;
}

// A sieve in a global array marking composites (unset means prime), counting in a global.
function pSieveGlobal(%n)
{
   for (%i = 0; %i <= %n; %i++)
      $comp[%i] = 0;
   for (%i = 2; %i * %i <= %n; %i++)
   {
      if ($comp[%i] == 1)
         continue;
      for (%j = %i * %i; %j <= %n; %j += %i)
         $comp[%j] = 1;
   }
   $found = 0;
   for (%i = 2; %i <= %n; %i++)
      if ($comp[%i] == 0)
         $found++;
   return $found;
}

// ---- fib, iterative and by the ternary ----
function pFibIter(%count)
{
   %t = 0;
   for (%k = 0; %k < %count; %k++)
   {
      %a = 0;
      %b = 1;
      %i = 0;
      while (%i < 30)
      {
         %c = %a + %b;
         %a = %b;
         %b = %c;
         %i++;
      }
      %t += %a % 1000;
   }
   return %t;
}

function pFibT(%n) { return %n < 2 ? %n : pFibT(%n - 1) + pFibT(%n - 2); }

// ---- globals as counters ----
function pGlobals(%count)
{
   $count = 0;
   $total = 0;
   $odd = 0;
   for (%i = 0; %i < %count; %i++)
   {
      $count++;
      %x = %i % 7;
      $total += %x;
      if (%x & 1)
         $odd = $odd + 1;
   }
   return $count + $total + $odd;
}

// ---- arrays ----
// `$a[%i, %j]` written and updated in place with `+=`, `while` loops.
function pGrid2(%w)
{
   %i = 0;
   while (%i < %w)
   {
      %j = 0;
      while (%j < %w)
      {
         $cell[%i, %j] = %i * %j;
         %j++;
      }
      %i++;
   }
   for (%i = 1; %i < %w; %i++)
      for (%j = 1; %j < %w; %j++)
         $cell[%i, %j] += $cell[%i - 1, %j - 1] % 10;
   %t = 0;
   for (%i = 0; %i < %w; %i++)
      %t += $cell[%i, %w - 1];
   return %t;
}

// Scores under string keys, `$score["player" @ %k]`.
function pStrKeys(%count)
{
   for (%k = 0; %k < 64; %k++)
      $score["player" @ %k] = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %name = "player" @ (%i % 64);
      $score[%name] += %i % 3;
   }
   %t = 0;
   for (%k = 0; %k < 64; %k++)
      %t += $score["player" @ %k];
   return %t;
}

// Insertion sort of a local array (a shuffled 0..n-1 by an LCG), then a checksum.
function pSortLocal(%n)
{
   %seed = 12345;
   for (%i = 0; %i < %n; %i++)
   {
      %seed = (%seed * 1103 + 12345) % 65536;
      %a[%i] = %seed;
   }
   for (%i = 1; %i < %n; %i++)
   {
      %v = %a[%i];
      %j = %i - 1;
      while (%j >= 0 && %a[%j] > %v)
      {
         %a[%j + 1] = %a[%j];
         %j--;
      }
      %a[%j + 1] = %v;
   }
   %t = 0;
   for (%i = 0; %i < %n; %i += 7)
      %t = (%t + %a[%i] * (%i % 13)) % 1000003;
   return %t;
}

// ---- objects ----
datablock SimDataBlock(ScoutArmor) { maxSpeed = 14; mass = 9; maxDamage = 0.66; };
datablock SimDataBlock(JuggArmor) { maxSpeed = 6; mass = 27; maxDamage = 3.2; };

function Unit::getDataBlock(%this) { return %this.dataBlock; }

function Unit::clamp(%this, %v, %lo, %hi)
{
   if (%v < %lo)
      return %lo;
   else if (%v > %hi)
      return %hi;
   return %v;
}

function Unit::move(%this, %dx, %dy, %dz)
{
   %this.x = %this.clamp(%this.x + %dx, -500, 500);
   %this.y = %this.clamp(%this.y + %dy, -500, 500);
   %this.z += %dz;
}

function Unit::damage(%this, %amount)
{
   %this.hp -= %amount;
   if (%this.hp <= 0)
   {
      %this.hp = 100;
      %this.deaths++;
   }
}

function Tank::damage(%this, %amount)
{
   Parent::damage(%this, %amount / 2);
}

function Unit::speed(%this)
{
   return %this.getDataBlock().maxSpeed * 2 - %this.getDataBlock().mass % 5;
}

function probeSetup()
{
   for (%i = 0; %i < 64; %i++)
   {
      if (%i % 4 == 3)
         %o = new ScriptObject() { class = Tank; superClass = Unit; };
      else
         %o = new ScriptObject() { class = Unit; };
      %o.dataBlock = (%i & 1) ? ScoutArmor.getId() : JuggArmor.getId();
      %o.x = 0;
      %o.y = 0;
      %o.z = 0;
      %o.hp = 100;
      %o.deaths = 0;
      $unit[%i] = %o;
   }
   $unitCount = 64;
   $counter2 = new ScriptObject() { class = Counter2; };
}

// An array of objects: `$unit[%i].hp` read and written in place.
function pObjArray(%count)
{
   for (%i = 0; %i < $unitCount; %i++)
      $unit[%i].hp = 100;
   %dead = 0;
   for (%k = 0; %k < %count; %k++)
   {
      %i = %k % $unitCount;
      $unit[%i].hp = $unit[%i].hp - (%k % 9);
      if ($unit[%i].hp <= 0)
      {
         $unit[%i].hp = 100;
         %dead++;
      }
   }
   return %dead;
}

// Methods with three and four arguments, one calling another.
function pMethodArgs(%count)
{
   for (%i = 0; %i < $unitCount; %i++)
   {
      $unit[%i].x = 0;
      $unit[%i].y = 0;
      $unit[%i].z = 0;
   }
   for (%k = 0; %k < %count; %k++)
   {
      %u = $unit[%k & 63];
      %u.move(%k % 7 - 3, %k % 5 - 2, 1);
   }
   %t = 0;
   for (%i = 0; %i < $unitCount; %i++)
      %t += $unit[%i].x + $unit[%i].y * 3 + $unit[%i].z;
   return %t;
}

// `Parent::` calls: a Tank's damage goes through Unit::damage.
function pParent(%count)
{
   for (%i = 0; %i < $unitCount; %i++)
   {
      $unit[%i].hp = 100;
      $unit[%i].deaths = 0;
   }
   for (%k = 0; %k < %count; %k++)
      $unit[%k % $unitCount].damage(%k % 13);
   %t = 0;
   for (%i = 0; %i < $unitCount; %i++)
      %t += $unit[%i].deaths * 1000 + $unit[%i].hp;
   return %t;
}

// Datablock fields through `%this.getDataBlock().field`.
function pDataBlock(%count)
{
   %t = 0;
   for (%k = 0; %k < %count; %k++)
      %t += $unit[%k & 63].speed();
   return %t;
}

// Field counters in a loop: `%obj.count++`, `%obj.total += %x`.
function pFieldCount(%count)
{
   %o = $unit[0];
   %o.count = 0;
   %o.total = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %o.count++;
      %o.total += %i & 15;
   }
   return %o.count + %o.total;
}

// ---- integer arithmetic ----
// A hash with `%`, `<<`, `>>`, `&`, `|`, `^`, classified by an `if` / `else if` chain.
function pBits(%count)
{
   %h = 7;
   %a = 0;
   %b = 0;
   %c = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %h = ((%h << 3) ^ (%h >> 2) ^ %i) & 1048575;
      %m = %h % 10;
      if (%m < 3)
         %a++;
      else if (%m < 6)
         %b += %h & 7;
      else if (%m == 9)
         %c = %c | (%h & 255);
      else
         %a += 2;
   }
   return %a + %b + %c;
}

// Collatz steps with `>>`, `&` and `while`.
function pCollatz(%count)
{
   %steps = 0;
   for (%i = 1; %i <= %count; %i++)
   {
      %n = %i;
      while (%n != 1)
      {
         if (%n & 1)
            %n = 3 * %n + 1;
         else
            %n = %n >> 1;
         %steps++;
      }
   }
   return %steps;
}

// ---- switch ----
function pSwitch(%count)
{
   %t = 0;
   for (%i = 0; %i < %count; %i++)
   {
      switch (%i % 8)
      {
         case 0:
            %t += 3;
         case 1 or 2:
            %t += 5;
         case 3:
            %t -= 1;
         case 4:
            %t += %i & 3;
         case 5:
            %t += 7;
         default:
            %t++;
      }
   }
   return %t;
}

// `switch$` on a word of a command line.
function pSwitchStr(%count)
{
   %line = "fire jump crouch use look throw";
   %t = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %cmd = getWord(%line, %i % 6);
      switch$ (%cmd)
      {
         case "fire":
            %t += 1;
         case "jump":
            %t += 2;
         case "crouch":
            %t += 3;
         case "use" or "look":
            %t += 4;
         default:
            %t += 6;
      }
   }
   return %t;
}

// ---- strings ----
// Building a line with `@ SPC TAB NL`, then `strlen`, `getSubStr`, `strstr`.
function pStrings(%count)
{
   %t = 0;
   for (%i = 0; %i < %count; %i++)
   {
      %s = "item" @ %i SPC "count" TAB (%i % 10) NL "end";
      %t += strlen(%s);
      %t += strstr(%s, "count");
      %sub = getSubStr(%s, 0, 4);
      if (%sub $= "item")
         %t++;
   }
   return %t;
}

// A record of words read back by `getWord`, `getWordCount`, with `$=` compares.
function pWordScan(%count)
{
   %rec = "alpha beta gamma delta alpha epsilon beta alpha";
   %n = getWordCount(%rec);
   %t = 0;
   for (%i = 0; %i < %count; %i++)
   {
      for (%w = 0; %w < %n; %w++)
      {
         %word = getWord(%rec, %w);
         if (%word $= "alpha")
            %t += 2;
         else if (strlen(%word) > 4)
            %t++;
      }
   }
   return %t;
}

// ---- float and vector math ----
function pFloat(%count)
{
   %t = 0;
   for (%i = 1; %i <= %count; %i++)
   {
      %d = mSqrt(%i * 3 + 1);
      %t += mFloor(%d * 10) % 7;
      %t += mFloor(%i / 3);
   }
   return %t;
}

function pVector(%count)
{
   %pos = "0 0 0";
   %vel = "1 0.5 -0.25";
   for (%i = 0; %i < %count; %i++)
   {
      %pos = VectorAdd(%pos, %vel);
      if (getWord(%pos, 2) < -100)
         %pos = getWord(%pos, 0) SPC getWord(%pos, 1) SPC 100;
   }
   return mFloor(getWord(%pos, 0) + getWord(%pos, 1) + getWord(%pos, 2));
}

// ---- plain calls with several arguments ----
function clampi(%v, %lo, %hi)
{
   if (%v < %lo)
      return %lo;
   if (%v > %hi)
      return %hi;
   return %v;
}

function pCalls3(%count)
{
   %t = 0;
   for (%i = 0; %i < %count; %i++)
      %t += clampi(%i % 100 - 20, 0, 50);
   return %t;
}

// ---- the five shapes, written other ways ----
// Recursive fib with `<=` and `else return`.
function pFibElse(%n)
{
   if (%n <= 1)
      return %n;
   else
      return pFibElse(%n - 1) + pFibElse(%n - 2);
}

// Trial division up to `mSqrt(%n)`, computed once before the loop, `%d += 2`.
function pPrimesSqrt(%max)
{
   %count = 1;
   for (%n = 3; %n <= %max; %n += 2)
   {
      %lim = mFloor(mSqrt(%n));
      %isPrime = true;
      for (%d = 3; %d <= %lim; %d += 2)
         if (%n % %d == 0)
         {
            %isPrime = false;
            break;
         }
      if (%isPrime)
         %count++;
   }
   return %count;
}

// A global sieve of `true`/`false` with `!` and `while`.
function pSieveBool(%n)
{
   for (%i = 2; %i <= %n; %i++)
      $isComp[%i] = false;
   %i = 2;
   while (%i * %i <= %n)
   {
      if (!$isComp[%i])
      {
         %j = %i * %i;
         while (%j <= %n)
         {
            $isComp[%j] = true;
            %j += %i;
         }
      }
      %i++;
   }
   %c = 0;
   for (%i = 2; %i <= %n; %i++)
      if (!$isComp[%i])
         %c++;
   return %c;
}

// Methods updating fields with `+=` and `++`, two arguments.
function Counter2::bump(%this, %k, %w)
{
   %this.total += %k * %w;
   %this.calls++;
}

function pMethods2(%count)
{
   %obj = $counter2;
   %obj.total = 0;
   %obj.calls = 0;
   for (%i = 0; %i < %count; %i++)
      %obj.bump(%i & 7, 2);
   return %obj.total + %obj.calls;
}

// Concatenation with `SPC` and a length through `strlen`, and a growing line cut back.
function pConcat2(%count)
{
   %t = 0;
   %line = "";
   for (%i = 0; %i < %count; %i++)
   {
      %s = "player" SPC %i;
      %t += strlen(%s);
      %line = %line @ %i;
      if (strlen(%line) > 60)
         %line = "";
   }
   return %t + strlen(%line);
}
