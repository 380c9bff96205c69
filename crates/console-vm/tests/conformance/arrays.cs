// Array variables: `$s[%i]` is the variable named `s` followed by the index's text, however
// it is spelled (issue 32 keeps arrays apart from the text, never apart from the name).
$s[12] = "twelve";
echo($s12 SPC $s1[2] SPC $s["12"]);
$x = "s" @ 12;
eval("echo($" @ $x @ ");");
$s1[2] = "again";
echo($s[12]);
$s0[5] = "s05";
echo($s05 SPC $s[5] @ "|");
$s[5] = "five";
echo($s[5] SPC $s05);
$s["007"] = "bond";
echo($s007 SPC $s[7] @ "|" SPC $s00[7]);
$s[-1] = "minus";
echo($s["-1"]);
$s[1.5] = "half";
echo($s["1.5"]);
$f = 2.0;
$s[$f * 3] = "six";
echo($s6);
// A double that %g prints with an exponent names that text, as in V12.
$big[1000000 * 1.0] = "e";
echo($big["1e+06"] @ "|" @ $big[1000000]);
$big[1000000] = "i";
echo($big1000000);
// Two indexes join with `_`.
$g[3, 4] = "g34";
echo($g3_4 SPC $g[3 @ "_" @ 4] SPC $g3_[4]);
$g["a", 1] = "ga1";
echo($ga_1);
// Compound assignment.
$n[2] = 5;
$n[2] += 3;
$n[2]++;
echo($n2);
// Local arrays in a function.
function loc()
{
   for (%i = 0; %i < 5; %i++)
      %a[%i] = %i * %i;
   %t = "";
   for (%i = 0; %i < 5; %i++)
      %t = %t @ %a[%i] @ ",";
   %a[1, 2] += 7;
   return %t SPC %a["4"] SPC %a[1, 2];
}
echo(loc());
// A named local that ends in digits is the same variable as the element.
function slot()
{
   %p1 = "named";
   %r = %p[1];
   %p[1] = "elem";
   return %r SPC %p1;
}
echo(slot());
// eval inside a function sees the function's array elements.
function ev()
{
   %q[3] = "three";
   eval("%w = %q3;");
   return %w;
}
echo(ev());
// Unset elements are empty; "" unsets.
$u[9] = "x";
$u[9] = "";
echo("[" @ $u[9] @ "]");
// export and deleteVariables see elements by their text.
$ex[1] = "one";
$ex[20] = "twenty";
$exa = "plain";
export("$ex*");
deleteVariables("$ex2*");
echo($ex[1] SPC "[" @ $ex[20] @ "]" SPC $exa);
deleteVariables("$ex*");
echo("[" @ $ex1 @ $exa @ "]");
// Sparse and large indexes.
$sp[123456789] = "far";
$sp[0] = "near";
echo($sp123456789 SPC $sp0);
// Fields with an index are the fields named base + index.
new ScriptObject(FA);
FA.v[3] = "three";
echo(FA.v3 SPC FA.v["3"]);
function fa(%o)
{
   for (%i = 0; %i < 3; %i++)
      %o.w[%i] = %i * 10;
   %o.w[1] += 5;
   return %o.w0 SPC %o.w[1] SPC %o.w["2"];
}
echo(fa(FA.getId()));
echo(fa(FA));
// An index held in a local (fused forms), of every kind.
function fl()
{
   %k = "x";
   $fl[%k] = "sx";
   %r = $flx;
   %k = -2;
   $fl[%k] = "neg";
   %r = %r SPC $fl["-2"];
   %k = 7;
   $fl[%k] = "seven";
   %r = %r SPC $fl[%k] SPC $fl7;
   %k = "7";
   %r = %r SPC $fl[%k];
   %a[%k] = "loc";
   %r = %r SPC %a[7];
   %k = "y";
   %a[%k] = "ly";
   %r = %r SPC %a["y"] SPC %a[%k];
   return %r;
}
echo(fl());
// `$a[%i] = literal` (one fused instruction) with a numeric, a text and a fractional index.
function litStore()
{
   for (%i = 0; %i < 3; %i++)
      $ls[%i] = 7;
   %k = "007";
   $ls[%k] = 1;
   %k = 1.5;
   $ls[%k] = 2;
   return $ls0 @ $ls1 @ $ls2 SPC $ls007 SPC $ls["1.5"] SPC $ls[7] @ "|";
}
echo(litStore());
// `%t += %a[%i]` and `%t = %t - $g[%i]` (the element read first, the local after it).
function sumElems()
{
   for (%i = 0; %i < 4; %i++)
   {
      %a[%i] = %i * 10;
      $se[%i] = %i;
   }
   %a["x"] = 5;
   %t = 1;
   for (%i = 0; %i < 4; %i++)
   {
      %t += %a[%i];
      %t = %t - $se[%i];
   }
   %k = "x";
   %t += %a[%k];
   return %t;
}
echo(sumElems());
