function helperFunction(%n) { return %n * 21; }
echo("helper loaded");
