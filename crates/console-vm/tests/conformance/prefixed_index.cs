// An array index that starts with a literal, `$a["key" @ %i]`: the variable named
// `akey` followed by the index's text, found as element %i of `akey` when the index is a
// plain number, and by its text otherwise: both name the same variables.
function fillKeys(%n)
{
   for (%i = 0; %i < %n; %i++)
      $tbl["key" @ %i] = %i * 10;
}
fillKeys(3);
echo($tblkey0 SPC $tblkey1 SPC $tblkey2 SPC $tbl["key2"] SPC $tblkey[1]);
$tblkey7 = "seven";
echo($tbl["key" @ 7] SPC $tbl["KEY" @ 7]);
// Text indexes: a leading zero, a sign, letters, a fraction, a large number.
$tbl["key" @ "05"] = "zero-five";
echo($tblkey05 SPC "[" @ $tblkey5 @ "]");
$tbl["key" @ -3] = "minus";
echo($tblkey-3);
echo($tbl["key-" @ 3]);
$tbl["key" @ "x"] = "ex";
echo($tblkeyx);
$tbl["key" @ 1.5] = "frac";
echo($tbl["key1.5"]);
$tbl["key" @ 1000000] = "big";
echo($tbl["key1000000"] SPC $tblkey[1000000] SPC "[" @ $tbl["key" @ 1e6] @ "]");
$tbl["key" @ 123456789] = "nine digits";
echo($tbl["key123456789"]);
$tbl["key" @ 1234567890] = "ten digits";
echo($tbl["key1234567890"]);
// A prefix ending in a digit: the text path (`tblk12` is element 12 of `tblk`).
$tbl["k1" @ 2] = "k-one-two";
echo($tblk12 SPC $tblk[12]);
// Compound assignment, increments and an empty prefix.
$tbl["n" @ 4] = 1;
$tbl["n" @ 4] += 5;
$tbl["n" @ 4]++;
echo($tbln4 SPC $tbl["" @ 9] SPC "[" @ $tbl9 @ "]");
// Locals.
function prefixedLocals(%n)
{
   for (%i = 0; %i < %n; %i++)
      %a["v" @ %i] = %i + 100;
   %t = 0;
   for (%i = 0; %i < %n; %i++)
      %t += %av[%i];
   return %t SPC %av2 SPC %a["v2"];
}
echo(prefixedLocals(4));
// The index is evaluated once.
$count = 0;
function nextIndex() { $count++; return $count; }
$tbl["c" @ nextIndex()] = "once";
echo($count SPC $tblc1);
// deleteVariables and export see the elements by their text.
deleteVariables("$tblkey*");
echo("[" @ $tblkey1 @ "]" SPC "[" @ $tbl["key" @ 2] @ "]");
