// Profiles of the client's screens: the look lives here, the layout in the .gui files.

new GuiControlProfile(HudTextProfile) {
   fontSize = 16; fontColor = "240 240 240"; justify = "left"; modal = 0;
};
new GuiControlProfile(HudBigProfile) {
   fontSize = 22; fontColor = "255 230 120"; justify = "left"; modal = 0;
};
new GuiControlProfile(HudPanelProfile) {
   fillColor = "0 0 0 150"; borderColor = "200 200 200 180"; border = 1; opaque = 1; modal = 0;
};
new GuiControlProfile(HudSmallProfile) {
   fontSize = 12; fontColor = "200 230 200"; justify = "left"; modal = 0;
};
new GuiControlProfile(HudHealthBarProfile) {
   fillColor = "20 24 30 200"; fillColorHL = "60 200 80"; borderColor = "230 230 230"; border = 1; modal = 0;
};
new GuiControlProfile(HudEnergyBarProfile) {
   fillColor = "20 24 30 200"; fillColorHL = "80 160 240"; borderColor = "230 230 230"; border = 1; modal = 0;
};
new GuiControlProfile(HudPingBarProfile) {
   fillColor = "20 24 30 200"; fillColorHL = "90 170 250"; borderColor = "160 160 160"; border = 1; modal = 0;
};
new GuiControlProfile(HudLossBarProfile) {
   fillColor = "20 24 30 200"; fillColorHL = "240 90 70"; borderColor = "160 160 160"; border = 1; modal = 0;
};
new GuiControlProfile(HudRateBarProfile) {
   fillColor = "20 24 30 200"; fillColorHL = "240 200 60"; borderColor = "160 160 160"; border = 1; modal = 0;
};
new GuiControlProfile(HudEditProfile) {
   fontSize = 14; fontColor = "255 255 255"; fillColor = "0 0 0 180"; borderColor = "255 255 255";
   cursorColor = "255 255 255"; border = 1; opaque = 1; canKeyFocus = 1;
};
new GuiControlProfile(MenuBackProfile) {
   fillColor = "20 28 44"; opaque = 1;
};
new GuiControlProfile(MenuTitleProfile) {
   fontSize = 48; fontColor = "255 210 90"; justify = "center"; modal = 0;
};
new GuiControlProfile(MenuButtonProfile) {
   fontSize = 20; fontColor = "240 240 240"; fontColorHL = "255 255 255";
   fillColor = "50 70 110"; fillColorHL = "80 110 170"; fillColorNA = "30 40 60";
   borderColor = "180 190 220"; border = 1; opaque = 1; justify = "center"; canKeyFocus = 1; tab = 1;
   // Played through alxPlay (the AudioProfiles are in client/ui/client.cs).
   soundButtonOver = "ButtonOverSound"; soundButtonDown = "ButtonDownSound";
};
new GuiControlProfile(BrowserListProfile) {
   fontSize = 16; fontColor = "230 230 230"; fontColorSEL = "255 255 255"; fillColor = "10 14 24 220";
   fillColorHL = "80 110 170"; borderColor = "180 190 220"; border = 1; opaque = 1; canKeyFocus = 1;
};
