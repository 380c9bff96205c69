// Math and vector built-ins.
echo(mFloor(2.7), " ", mFloor(-2.5), " ", mCeil(2.1), " ", mAbs(-3.5));
echo(mSqrt(16), " ", mPow(2, 10), " ", mFloatLength(3.14159, 2), " ", mFloatLength(2, 0));
echo(mSin(0), " ", mCos(0), " ", mAcos(1), " ", mAtan(1, 1) * 4);
echo(VectorAdd("1 2 3", "4 5 6"), " | ", VectorSub("4 5 6", "1 1 1"), " | ", VectorScale("1 2 3", 2));
echo(VectorDot("1 0 0", "0 1 0"), " ", VectorCross("1 0 0", "0 1 0"), " ", VectorLen("3 4 0"), " ", VectorDist("0 0 0", "0 3 4"));
echo(VectorNormalize("0 0 5"), " | ", VectorNormalize("3 0 4"));
setRandomSeed(42);
$a = getRandom(10);
$b = getRandom(5, 7);
$c = getRandom();
echo($a >= 0 && $a <= 10, " ", $b >= 5 && $b <= 7, " ", $c >= 0 && $c < 1);
setRandomSeed(42);
echo(getRandom(10) == $a);
