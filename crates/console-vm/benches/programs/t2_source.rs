// A Tribes 2-sized script set (about 1 MB) in TorqueScript and the same program in idiomatic
// Lua 5.4, for timing parse + compile against Lua's `load` (issue 32). Included with
// `include!` by `examples/ratios.rs` and `benches/scripts_vs_lua.rs`.
//
// Four shapes in turn, as the game's scripts have them: a datablock with a parent and a dozen
// fields; a namespace method with `switch$`, `if`/`else`, a `for` over an array field, a
// two-index global array and a tagged-string message; a GUI object tree (`new` inside `new`);
// and a plain function with arithmetic, a global array and string building. Each is
// numbered, so no two functions or objects share a name. The Lua side writes datablocks and
// objects as table constructors passed to a function, methods as `Class_method` functions
// with `:` calls, `switch$` as an `if`/`elseif` chain, `@` as `..`.

/// `(TorqueScript, Lua)`, each at least `min_bytes` long.
fn t2_sources(min_bytes: usize) -> (String, String) {
    use std::fmt::Write as _;
    let mut ts = String::with_capacity(min_bytes + 4096);
    let mut lua = String::with_capacity(min_bytes + 4096);
    let mut i = 0usize;
    while ts.len() < min_bytes {
        let dmg = 0.6 + (i % 10) as f64 / 10.0;
        match i % 4 {
            0 => {
                let _ = write!(
                    ts,
                    "datablock PlayerData(Armor{i}) : LightMaleHumanArmor\n{{\n   className = \"Armor\";\n   shapeFile = \"light_male.dts\";\n   maxDamage = {dmg};\n   mass = 90;\n   drag = 0.3;\n   runForce = 55 * 90;\n   jumpImpulse = 75 + {i};\n   maxForwardSpeed = 15;\n   boundingBox = \"1.2 1.2 2.3\";\n   debrisShapeName = \"debris_player.dts\";\n   footSplashHeight = 0.1;\n   max[RepairKit] = 1;\n}};\n\n"
                );
                let _ = write!(
                    lua,
                    "Armor{i} = datablock(\"PlayerData\", \"Armor{i}\", LightMaleHumanArmor, {{\n   className = \"Armor\",\n   shapeFile = \"light_male.dts\",\n   maxDamage = {dmg},\n   mass = 90,\n   drag = 0.3,\n   runForce = 55 * 90,\n   jumpImpulse = 75 + {i},\n   maxForwardSpeed = 15,\n   boundingBox = \"1.2 1.2 2.3\",\n   debrisShapeName = \"debris_player.dts\",\n   footSplashHeight = 0.1,\n   max = {{ RepairKit = 1 }},\n}})\n\n"
                );
            }
            1 => {
                let _ = write!(
                    ts,
                    "function Armor{i}::onCollision(%this, %obj, %col, %forceVehicleNode)\n{{\n   if (%obj.getState() $= \"Dead\")\n      return;\n   %className = %col.getClassName();\n   switch$ (%className)\n   {{\n      case \"Item\":\n         %this.pickup(%obj, %col, 1);\n      case \"Vehicle\":\n         if (%col.mountable && !%obj.isMounted())\n            %this.mountVehicle(%obj, %col, %forceVehicleNode);\n      default:\n         %obj.lastCollision = %col;\n   }}\n   for (%i = 0; %i < %obj.inv[%className]; %i++)\n      $count[%className, %i] += %i * 2;\n   messageClient(%obj.client, 'MsgCollide', '\\c2You hit %1.', %col.getName() @ \" (\" @ %className @ \")\");\n}}\n\n"
                );
                let _ = write!(
                    lua,
                    "function Armor{i}_onCollision(this, obj, col, forceVehicleNode)\n   if obj:getState() == \"Dead\" then\n      return\n   end\n   local className = col:getClassName()\n   if className == \"Item\" then\n      this:pickup(obj, col, 1)\n   elseif className == \"Vehicle\" then\n      if col.mountable and not obj:isMounted() then\n         this:mountVehicle(obj, col, forceVehicleNode)\n      end\n   else\n      obj.lastCollision = col\n   end\n   for i = 0, obj.inv[className] - 1 do\n      local row = count[className]\n      row[i] = (row[i] or 0) + i * 2\n   end\n   messageClient(obj.client, \"MsgCollide\", \"\\\\c2You hit %1.\", col:getName() .. \" (\" .. className .. \")\")\nend\n\n"
                );
            }
            2 => {
                let _ = write!(
                    ts,
                    "new GuiControl(Hud{i}) {{\n   profile = \"GuiDefaultProfile\";\n   horizSizing = \"right\";\n   vertSizing = \"bottom\";\n   position = \"0 0\";\n   extent = \"640 480\";\n   visible = \"1\";\n   new GuiTextCtrl(HudText{i}) {{\n      profile = \"GuiTextProfile\";\n      position = \"10 {i}\";\n      extent = \"120 18\";\n      text = \"Score: 0\";\n   }};\n   new GuiBitmapCtrl() {{\n      profile = \"GuiDefaultProfile\";\n      bitmap = \"gui/hud_ret_{i}\";\n      wrap = \"0\";\n   }};\n}};\n\n"
                );
                let _ = write!(
                    lua,
                    "Hud{i} = new(\"GuiControl\", \"Hud{i}\", {{\n   profile = \"GuiDefaultProfile\",\n   horizSizing = \"right\",\n   vertSizing = \"bottom\",\n   position = \"0 0\",\n   extent = \"640 480\",\n   visible = \"1\",\n   new(\"GuiTextCtrl\", \"HudText{i}\", {{\n      profile = \"GuiTextProfile\",\n      position = \"10 {i}\",\n      extent = \"120 18\",\n      text = \"Score: 0\",\n   }}),\n   new(\"GuiBitmapCtrl\", nil, {{\n      profile = \"GuiDefaultProfile\",\n      bitmap = \"gui/hud_ret_{i}\",\n      wrap = \"0\",\n   }}),\n}})\n\n"
                );
            }
            _ => {
                let _ = write!(
                    ts,
                    "function updateScore{i}(%client, %points, %reason)\n{{\n   %c = %client.score * 2 + %points;\n   if (%c > 10)\n      $scoreText[{i}] = %c @ \" points\" SPC %reason;\n   else\n      $scoreText[{i}] = \"none\";\n   for (%j = 0; %j < %points; %j++)\n      %c = %c + getWord(%reason, %j);\n   %client.score = %c;\n   return %c;\n}}\n\n"
                );
                let _ = write!(
                    lua,
                    "function updateScore{i}(client, points, reason)\n   local c = client.score * 2 + points\n   if c > 10 then\n      scoreText[{i}] = c .. \" points\" .. \" \" .. reason\n   else\n      scoreText[{i}] = \"none\"\n   end\n   for j = 0, points - 1 do\n      c = c + getWord(reason, j)\n   end\n   client.score = c\n   return c\nend\n\n"
                );
            }
        }
        i += 1;
    }
    (ts, lua)
}
