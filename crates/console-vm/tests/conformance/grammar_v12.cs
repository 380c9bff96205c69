// V12's command grammar, production by production (the console's yacc grammar as the
// Torque engine lineage keeps it): each line below exercises one rule, numbered in its echo.
//  1 object_decl with parent_block (`new Class(Name : Parent)` copies the parent's fields)
//  2 class_name_expr `(expr)`          3 object_decl_list (nested `new` in a declare block)
//  4 datablock_decl with parent_block  5 switch_stmt, case_expr `or`, default
//  6 switch$                           7 VAR '[' aidx_expr ']' (comma indices join with _)
//  8 TAGATOM                           9 IDENT as a constant string
// 10 '?' ':'                          11 slot_acc '[' aidx_expr ']', slot assign ops, ++
// 12 IDENT '::' IDENT '(' ... ')'     13 unary '-', '~', '!'
// 14 NL, TAB, SPC (opCAT)             15 '$=' and '!$=', '&&'
// 16 slot_assign `datablock = ...`    17 do-while
// 18 INTCONST (hex), FLTCONST         19 string escapes
// 20 assignment as an expression      21 for with empty parts
// 22 object_args                      23 package_decl
// 24 repeated semicolons              25 global arrays with comma indices
// 26 post-increment's value           27 integer operators
// 28 every compound assignment        29 a slot of a new object
// 30 a slot with two indices, chained slot access
new ScriptObject(Base) { a = 1; b = 2; };
new ScriptObject(Kid : Base) { b = 3; };
echo("1 parent " @ Kid.a @ Kid.b);
$cls = "ScriptObject";
$o = new ($cls)(ByExpr) { z = 9; };
echo("2 classexpr " @ ByExpr.z @ " " @ ByExpr.getClassName());
new SimGroup(G) { new ScriptObject(Inner) { x = 1; }; new ScriptObject(Inner2) { x = 2; }; };
echo("3 nested " @ G.getCount() @ " " @ Inner.x);
datablock SimDataBlock(BaseBlock) { a = 5; };
datablock SimDataBlock(Coin : BaseBlock) { c = 1; };
echo("4 datablock " @ Coin.a @ Coin.c);
function sw(%x) { switch (%x) { case 1 or 2: return "low"; case 3: return "three"; default: return "other"; } }
echo("5 switch " @ sw(2) @ sw(3) @ sw(9));
function sws(%x) { switch$ (%x) { case "a" or "b": return "ab"; default: return "d"; } }
echo("6 switch$ " @ sws("b") @ sws("z"));
function arr() { %a[1, 2] = 3; return %a1_2; }
echo("7 array " @ arr());
$t = 'tagged';
echo("8 tag " @ getTaggedString($t));
echo("9 bare " @ foo);
echo("10 ternary " @ (1 ? 2 : 3) @ (0 ? 2 : 3));
new ScriptObject(S) { };
S.field[1] = 5; S.f = 1; S.f += 2; S.f++;
echo("11 slots " @ S.field[1] @ " " @ S.f);
function Foo::bar() { return "foobar"; }
echo("12 nscall " @ Foo::bar());
function neg(%y) { return -%y SPC ~%y SPC !%y; }
echo("13 unary " @ neg(5));
echo("14 cat " @ ("a" NL "b" TAB "c" SPC "d"));
function streq(%a, %b) { return (%a $= "x" && %b !$= "y"); }
echo("15 streq " @ streq("x", "z") @ streq("x", "y"));
function dbslot() { %o = new ScriptObject() { datablock = Coin; }; return %o.datablock; }
echo("16 datablock slot " @ dbslot());
function dw() { %i = 0; do { %i++; } while (%i < 3); return %i; }
echo("17 dowhile " @ dw());
echo("18 nums " @ 0x1F SPC 1.5e3 SPC .5);
echo("19 esc " @ "\x41\t|");
function chain() { %a = %b = 5; return %a @ %b; }
echo("20 chain " @ chain());
function forever() { for (;;) { return "for"; } }
echo("21 for " @ forever());
function objargs() { %o = new ScriptObject(Named, 1, 2) { }; return %o.getName(); }
echo("22 objargs " @ objargs());
package P { function pkgf() { return "pkg"; } };
activatePackage(P);
echo("23 package " @ pkgf());
echo("24 semis");;
$arr[1, "x"] = 7;
echo("25 globarr " @ $arr1_x);
function post() { %x = 1; %y = %x++; return %y @ %x; }
echo("26 post " @ post());
echo("27 mod " @ (7 % 3) @ (1 << 3) @ (8 >> 1) @ (6 & 3) @ (6 | 1) @ (6 ^ 3));
function cmpd() { %x = 8; %x %= 3; %x <<= 2; %x |= 1; %x >>= 1; %x &= 7; %x ^= 1; %x /= 2; %x *= 4; %x -= 1; return %x; }
echo("28 compound " @ cmpd());
echo("29 method on new " @ (new ScriptObject(Q) { v = 4; }).v);
new ScriptObject(Chain) { };
Chain.next = new ScriptObject() { v = "deep"; };
Chain.m[1, 2] = "two";
echo("30 chain " @ Chain.next.v SPC Chain.m[1, 2] SPC Chain.m1_2);
