-- The Lua side of `probes.cs`: each probe written as idiomatic Lua 5.4 (local functions,
-- plain tables, `local` counters where TorqueScript's author used globals, nested tables for
-- `$a[%i, %j]`, tables with metatables for objects, three numbers for a vector).

local function pPrimesWhile(max)
  local count = 0
  local n = 1
  while n < max do
    n = n + 1
    if not (n > 2 and n % 2 == 0) then
      local d = 3
      local prime = true
      while d * d <= n do
        if n % d == 0 then prime = false break end
        d = d + 2
      end
      if prime then count = count + 1 end
    end
  end
  return count
end

local function pSieveLocal(n)
  local s = {}
  for i = 2, n do s[i] = true end
  local i = 2
  while i * i <= n do
    if s[i] then
      for j = i * i, n, i do s[j] = false end
    end
    i = i + 1
  end
  local c = 0
  for k = 2, n do if s[k] then c = c + 1 end end
  return c
end

local comp = {}
local function pSieveGlobal(n)
  for i = 0, n do comp[i] = 0 end
  local i = 2
  while i * i <= n do
    if comp[i] ~= 1 then
      for j = i * i, n, i do comp[j] = 1 end
    end
    i = i + 1
  end
  local found = 0
  for k = 2, n do if comp[k] == 0 then found = found + 1 end end
  return found
end

local function pFibIter(count)
  local t = 0
  for _ = 1, count do
    local a, b = 0, 1
    for _ = 1, 30 do a, b = b, a + b end
    t = t + a % 1000
  end
  return t
end

local function pFibT(n)
  return n < 2 and n or pFibT(n - 1) + pFibT(n - 2)
end

local function pGlobals(count)
  local c, total, odd = 0, 0, 0
  for i = 0, count - 1 do
    c = c + 1
    local x = i % 7
    total = total + x
    if x & 1 ~= 0 then odd = odd + 1 end
  end
  return c + total + odd
end

local cell = {}
local function pGrid2(w)
  for i = 0, w - 1 do
    local row = cell[i]
    if not row then row = {} cell[i] = row end
    for j = 0, w - 1 do row[j] = i * j end
  end
  for i = 1, w - 1 do
    local row, up = cell[i], cell[i - 1]
    for j = 1, w - 1 do row[j] = row[j] + up[j - 1] % 10 end
  end
  local t = 0
  for i = 0, w - 1 do t = t + cell[i][w - 1] end
  return t
end

local score = {}
local function pStrKeys(count)
  for k = 0, 63 do score["player" .. k] = 0 end
  for i = 0, count - 1 do
    local name = "player" .. (i % 64)
    score[name] = score[name] + i % 3
  end
  local t = 0
  for k = 0, 63 do t = t + score["player" .. k] end
  return t
end

local function pSortLocal(n)
  local a = {}
  local seed = 12345
  for i = 0, n - 1 do
    seed = (seed * 1103 + 12345) % 65536
    a[i] = seed
  end
  for i = 1, n - 1 do
    local v = a[i]
    local j = i - 1
    while j >= 0 and a[j] > v do
      a[j + 1] = a[j]
      j = j - 1
    end
    a[j + 1] = v
  end
  local t = 0
  for i = 0, n - 1, 7 do t = (t + a[i] * (i % 13)) % 1000003 end
  return t
end

-- objects
local ScoutArmor = { maxSpeed = 14, mass = 9, maxDamage = 0.66 }
local JuggArmor = { maxSpeed = 6, mass = 27, maxDamage = 3.2 }

local Unit = {}
Unit.__index = Unit
function Unit:getDataBlock() return self.dataBlock end
function Unit:clamp(v, lo, hi)
  if v < lo then return lo elseif v > hi then return hi end
  return v
end
function Unit:move(dx, dy, dz)
  self.x = self:clamp(self.x + dx, -500, 500)
  self.y = self:clamp(self.y + dy, -500, 500)
  self.z = self.z + dz
end
function Unit:damage(amount)
  self.hp = self.hp - amount
  if self.hp <= 0 then
    self.hp = 100
    self.deaths = self.deaths + 1
  end
end
function Unit:speed()
  return self:getDataBlock().maxSpeed * 2 - self:getDataBlock().mass % 5
end
local Tank = setmetatable({}, Unit)
Tank.__index = Tank
function Tank:damage(amount) Unit.damage(self, amount / 2) end

local units = {}
local unitCount = 64
local function probeSetup()
  for i = 0, unitCount - 1 do
    local o = setmetatable({}, (i % 4 == 3) and Tank or Unit)
    o.dataBlock = (i & 1 == 1) and ScoutArmor or JuggArmor
    o.x, o.y, o.z, o.hp, o.deaths = 0, 0, 0, 100, 0
    units[i] = o
  end
end

local function pObjArray(count)
  for i = 0, unitCount - 1 do units[i].hp = 100 end
  local dead = 0
  for k = 0, count - 1 do
    local u = units[k % unitCount]
    u.hp = u.hp - k % 9
    if u.hp <= 0 then
      u.hp = 100
      dead = dead + 1
    end
  end
  return dead
end

local function pMethodArgs(count)
  for i = 0, unitCount - 1 do
    local u = units[i]
    u.x, u.y, u.z = 0, 0, 0
  end
  for k = 0, count - 1 do
    units[k & 63]:move(k % 7 - 3, k % 5 - 2, 1)
  end
  local t = 0
  for i = 0, unitCount - 1 do
    local u = units[i]
    t = t + u.x + u.y * 3 + u.z
  end
  return t
end

local function pParent(count)
  for i = 0, unitCount - 1 do
    units[i].hp = 100
    units[i].deaths = 0
  end
  for k = 0, count - 1 do units[k % unitCount]:damage(k % 13) end
  local t = 0
  for i = 0, unitCount - 1 do t = t + units[i].deaths * 1000 + units[i].hp end
  return t
end

local function pDataBlock(count)
  local t = 0
  for k = 0, count - 1 do t = t + units[k & 63]:speed() end
  return t
end

local function pFieldCount(count)
  local o = units[0]
  o.count = 0
  o.total = 0
  for i = 0, count - 1 do
    o.count = o.count + 1
    o.total = o.total + (i & 15)
  end
  return o.count + o.total
end

local function pBits(count)
  local h, a, b, c = 7, 0, 0, 0
  for i = 0, count - 1 do
    h = ((h << 3) ~ (h >> 2) ~ i) & 1048575
    local m = h % 10
    if m < 3 then a = a + 1
    elseif m < 6 then b = b + (h & 7)
    elseif m == 9 then c = c | (h & 255)
    else a = a + 2 end
  end
  return a + b + c
end

local function pCollatz(count)
  local steps = 0
  for i = 1, count do
    local n = i
    while n ~= 1 do
      if n & 1 == 1 then n = 3 * n + 1 else n = n >> 1 end
      steps = steps + 1
    end
  end
  return steps
end

local function pSwitch(count)
  local t = 0
  for i = 0, count - 1 do
    local m = i % 8
    if m == 0 then t = t + 3
    elseif m == 1 or m == 2 then t = t + 5
    elseif m == 3 then t = t - 1
    elseif m == 4 then t = t + (i & 3)
    elseif m == 5 then t = t + 7
    else t = t + 1 end
  end
  return t
end

local line = { "fire", "jump", "crouch", "use", "look", "throw" }
local function pSwitchStr(count)
  local t = 0
  for i = 0, count - 1 do
    local cmd = line[i % 6 + 1]
    if cmd == "fire" then t = t + 1
    elseif cmd == "jump" then t = t + 2
    elseif cmd == "crouch" then t = t + 3
    elseif cmd == "use" or cmd == "look" then t = t + 4
    else t = t + 6 end
  end
  return t
end

local function pStrings(count)
  local t = 0
  for i = 0, count - 1 do
    local s = "item" .. i .. " count\t" .. (i % 10) .. "\nend"
    t = t + #s
    t = t + (string.find(s, "count", 1, true) - 1)
    if s:sub(1, 4) == "item" then t = t + 1 end
  end
  return t
end

local function pWordScan(count)
  local rec = "alpha beta gamma delta alpha epsilon beta alpha"
  local words = {}
  for w in rec:gmatch("%S+") do words[#words + 1] = w end
  local t = 0
  for _ = 1, count do
    for w = 1, #words do
      local word = words[w]
      if word == "alpha" then t = t + 2
      elseif #word > 4 then t = t + 1 end
    end
  end
  return t
end

local sqrt, floor = math.sqrt, math.floor
local function pFloat(count)
  local t = 0
  for i = 1, count do
    local d = sqrt(i * 3 + 1)
    t = t + floor(d * 10) % 7
    t = t + i // 3
  end
  return t
end

local function vadd(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function pVector(count)
  local pos = { 0, 0, 0 }
  local vel = { 1, 0.5, -0.25 }
  for _ = 1, count do
    pos = vadd(pos, vel)
    if pos[3] < -100 then pos = { pos[1], pos[2], 100 } end
  end
  return floor(pos[1] + pos[2] + pos[3])
end

local function clampi(v, lo, hi)
  if v < lo then return lo end
  if v > hi then return hi end
  return v
end
local function pCalls3(count)
  local t = 0
  for i = 0, count - 1 do t = t + clampi(i % 100 - 20, 0, 50) end
  return t
end

local function pFibElse(n)
  if n <= 1 then return n else return pFibElse(n - 1) + pFibElse(n - 2) end
end

local function pPrimesSqrt(max)
  local count = 1
  for n = 3, max, 2 do
    local lim = floor(sqrt(n))
    local isPrime = true
    for d = 3, lim, 2 do
      if n % d == 0 then isPrime = false break end
    end
    if isPrime then count = count + 1 end
  end
  return count
end

local isComp = {}
local function pSieveBool(n)
  for i = 2, n do isComp[i] = false end
  local i = 2
  while i * i <= n do
    if not isComp[i] then
      for j = i * i, n, i do isComp[j] = true end
    end
    i = i + 1
  end
  local c = 0
  for k = 2, n do if not isComp[k] then c = c + 1 end end
  return c
end

local Counter2 = {}
Counter2.__index = Counter2
function Counter2:bump(k, w)
  self.total = self.total + k * w
  self.calls = self.calls + 1
end
local counter2 = setmetatable({ total = 0, calls = 0 }, Counter2)
local function pMethods2(count)
  local obj = counter2
  obj.total = 0
  obj.calls = 0
  for i = 0, count - 1 do obj:bump(i & 7, 2) end
  return obj.total + obj.calls
end

local function pConcat2(count)
  local t = 0
  local line = ""
  for i = 0, count - 1 do
    local s = "player " .. i
    t = t + #s
    line = line .. i
    if #line > 60 then line = "" end
  end
  return t + #line
end

return {
  pFibElse = pFibElse, pPrimesSqrt = pPrimesSqrt, pSieveBool = pSieveBool,
  pMethods2 = pMethods2, pConcat2 = pConcat2,
  pPrimesWhile = pPrimesWhile, pSieveLocal = pSieveLocal, pSieveGlobal = pSieveGlobal,
  pFibIter = pFibIter, pFibT = pFibT, pGlobals = pGlobals, pGrid2 = pGrid2,
  pStrKeys = pStrKeys, pSortLocal = pSortLocal, probeSetup = probeSetup,
  pObjArray = pObjArray, pMethodArgs = pMethodArgs, pParent = pParent,
  pDataBlock = pDataBlock, pFieldCount = pFieldCount, pBits = pBits, pCollatz = pCollatz,
  pSwitch = pSwitch, pSwitchStr = pSwitchStr, pStrings = pStrings, pWordScan = pWordScan,
  pFloat = pFloat, pVector = pVector, pCalls3 = pCalls3,
}
