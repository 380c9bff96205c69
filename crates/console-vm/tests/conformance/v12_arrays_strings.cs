// V12 reference page Console, "Arrays" and "Special String Operators".
$array[10] = "ten";
echo($array10);
$array["foo"] = 100;
echo($arrayfoo);
$array[1, 0] = 10;
echo($array1_0);
echo("Hello " @ "World!");
echo("Hello" TAB "World!" $= "Hello\tWorld!");
echo("Hello" NL "World!" $= "Hello\nWorld!");
echo("Hello" SPC "World!");
echo("abc" $= "ABC");
echo("abc" !$= "ABC");
echo("abc" !$= "abd");
