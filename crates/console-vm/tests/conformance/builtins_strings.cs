// String built-ins.
$s = "the quick  brown\tfox\njumps";
echo(getWordCount($s), " ", getWord($s, 1), " [", getWord($s, 2), "] ", getWord($s, 3));
echo(getWords("a b c d e", 1, 3));
echo(getWords("a b c d e", 3));
echo(setWord("a b c", 1, "X"), "|", removeWord("a b c", 0), "|", firstWord("one two three"), "|", restWords("one two three"));
echo(getFieldCount("a\tb c\nd"), " ", getField("a\tb c\nd", 1), " ", getFields("a\tb\tc", 1, 2) $= "b\tc");
echo(setField("a\tb", 1, "z") $= "a\tz", " ", removeField("a\tb\tc", 1) $= "a\tc");
echo(getRecordCount("r1\nr2\nr3"), " ", getRecord("r1\nr2\nr3", 2), " ", setRecord("r1\nr2", 0, "x") $= "x\nr2");
echo(strlen("hello"), " ", strupr("Hello"), " ", strlwr("Hello"));
echo(strstr("hello world", "o w"), " ", strstr("hello", "z"), " ", strpos("hello", "l"), " ", strpos("hello", "l", 3));
echo(getSubStr("hello world", 6, 5), "|", getSubStr("abc", 1, 100), "|", getSubStr("abc", 5, 1), "|");
echo(strreplace("a-b-c", "-", "+"), " ", strchr("hello", "l"), " [", strchr("hello", "z"), "]");
echo(strcmp("a", "b"), " ", strcmp("b", "a"), " ", strcmp("a", "a"), " ", stricmp("ABC", "abc"));
echo("[" @ trim("  x y  ") @ "][" @ ltrim("  x ") @ "][" @ rtrim(" x  ") @ "]");
echo(stripChars("a-b_c", "-_"));
echo(expandEscape("a\tb\n\\"), " ", collapseEscape("x\\ty") $= "x\ty");
echo(strlen("\c0"), " ", expandEscape("\c0\c9\cr"));
function tokens()
{
   %rest = "alpha beta,gamma";
   while (%rest !$= "")
   {
      %rest = nextToken(%rest, "tok", " ,");
      echo("token " @ %tok);
   }
}
tokens();
$tag = 'hello tag';
echo(strlen($tag) > 1, " ", detag($tag), " ", getTaggedString($tag), " ", getTaggedString(addTaggedString("hello tag")) $= "hello tag");
echo(addTaggedString("x") $= addTaggedString("x"));
echo(detag("plain"));
