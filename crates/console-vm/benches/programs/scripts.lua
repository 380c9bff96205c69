-- The Lua side of `benches/scripts_vs_lua.rs`: the programs of `scripts.cs` written as
-- idiomatic Lua 5.4 (local functions, plain tables).

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function primes(max)
  local count = 0
  for n = 2, max do
    local isPrime = true
    local d = 2
    while d * d <= n do
      if n % d == 0 then isPrime = false break end
      d = d + 1
    end
    if isPrime then count = count + 1 end
  end
  return count
end

local function sieve(n)
  local s = {}
  for i = 0, n do s[i] = true end
  s[0] = false
  s[1] = false
  local i = 2
  while i * i <= n do
    if s[i] then
      for j = i * i, n, i do s[j] = false end
    end
    i = i + 1
  end
  local c = 0
  for i = 0, n do if s[i] then c = c + 1 end end
  return c
end

local Counter = {}
Counter.__index = Counter
function Counter.add(self, k) self.n = self.n + k end
local counter = setmetatable({ n = 0 }, Counter)
local function methods(count)
  local obj = counter
  obj.n = 0
  for _ = 1, count do obj:add(1) end
  return obj.n
end

local function concat(count)
  local t = 0
  for i = 0, count - 1 do
    local s = "word" .. i
    t = t + #s
  end
  return t
end

local tbl = {}
local function strIndex(count)
  for i = 0, 99 do tbl["key" .. i] = i end
  local t = 0
  for i = 0, count - 1 do t = t + tbl["key" .. (i % 100)] end
  return t
end

local function localArray(count)
  local a = {}
  for i = 0, count - 1 do a[i] = i * 2 end
  local t = 0
  for i = 0, count - 1 do t = t + a[i] end
  return t
end

local function grid(w)
  local g = {}
  for i = 0, w - 1 do
    local row = {}
    g[i] = row
    for j = 0, w - 1 do row[j] = i + j end
  end
  local t = 0
  for i = 0, w - 1 do
    local row = g[i]
    for j = 0, w - 1 do t = t + row[j] end
  end
  return t
end

local holder = { v = {} }
local function fieldArray(count)
  local obj = holder
  obj.v = {}
  for i = 0, count - 1 do obj.v[i] = i end
  local t = 0
  for i = 0, count - 1 do t = t + obj.v[i] end
  return t
end

local function intOps(count)
  local h = 0
  for i = 0, count - 1 do
    h = ((h << 5) + i) & 65535
    h = h ~ (i % 7) | 1
  end
  return h
end

local function build(count)
  local parts = {}
  for i = 0, count - 1 do parts[#parts + 1] = "x " .. i .. "\ty" end
  return #table.concat(parts)
end

local function words(count)
  local parts = { "the" }
  for i = 0, count - 1 do parts[#parts + 1] = "w" .. i end
  local s = table.concat(parts, " ")
  local t = 0
  for w in string.gmatch(s, "%S+") do t = t + #w end
  return t
end

local cmd = { [0] = "fire", "jump", "crouch", "use", "look" }
local function commands(count)
  local t = 0
  for i = 0, count - 1 do
    local c = cmd[i % 5]
    if c == "fire" then t = t + 1
    elseif c == "jump" then t = t + 2
    elseif c == "crouch" or c == "prone" then t = t + 3
    elseif c == "use" then t = t + 4
    else t = t + 5 end
  end
  return t
end

local LightArmor = { maxSpeed = 12, accel = 0.5, drag = 0.01 }
local HeavyArmor = { maxSpeed = 7, accel = 0.25, drag = 0.02 }
local Player = {}
Player.__index = Player
function Player.tick(self)
  local db = self.dataBlock
  local v = self.vel + db.accel - self.vel * db.drag
  if v > db.maxSpeed then v = db.maxSpeed end
  self.vel = v
  self.pos = self.pos + v
end
local players = {}
local function makePlayers(n)
  for i = 0, n - 1 do
    players[i] = setmetatable({ dataBlock = (i & 1 == 1) and LightArmor or HeavyArmor, vel = 0, pos = 0 }, Player)
  end
end
local function ticks(count)
  local n = #players + 1
  for _ = 1, count do
    for i = 0, n - 1 do players[i]:tick() end
  end
  return math.floor(players[0].pos)
end

return {
  fib = fib, primes = primes, sieve = sieve, methods = methods, concat = concat,
  strIndex = strIndex, localArray = localArray, grid = grid, fieldArray = fieldArray,
  intOps = intOps, build = build, words = words, commands = commands,
  makePlayers = makePlayers, ticks = ticks,
}
