// V12 number formatting (%g, 6 digits) and integer operators.
echo(10 / 3);
echo(1 / 4);
echo(1e3);
echo(2 * 3);
echo(1000000 + 0);
echo(1000000);
echo(.5 + 1);
echo(0x10);
echo(7 % 3);
echo(-7 % 3);
echo(6 & 3, " ", 6 | 3, " ", 6 ^ 3, " ", 1 << 4, " ", 256 >> 2, " ", ~0);
echo(!0, " ", !5, " ", -"3abc");
echo("12abc" + 1);
echo("abc" == 0);
echo(1 == 1.0, " ", 2 < 10, " ", "2" < "10", " ", "b" $= "B");
function prec(%a, %b) { return %a == %b @ "x"; }
echo(prec(0, ""), prec("1x", 1));
echo(true + true, " ", false);
echo(1 && 0, " ", 1 || 0, " ", 0 || "", " ", 2 && 3);
echo(5 > 3 ? "yes" : "no");
echo(0.1 + 0.2);
echo(1.5e-3);
echo(123456789);
echo(123456789 * 1);
echo(3 - -2);
