echo("this file has a syntax error so nothing runs");
function broken( { }
