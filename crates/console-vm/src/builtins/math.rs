//! Built-ins: math and vectors (mFloor, mSin, VectorAdd, ...).

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- math ----
    c.register_function("mFloor", 2, 2, "mFloor(float)", |_c, a| Value::Int(a.f64(0).floor() as i64));
    c.register_function("mCeil", 2, 2, "mCeil(float)", |_c, a| Value::Int(a.f64(0).ceil() as i64));
    c.register_function("mAbs", 2, 2, "mAbs(float)", |_c, a| a.f64(0).abs());
    c.register_function("mSqrt", 2, 2, "mSqrt(float)", |_c, a| a.f64(0).sqrt());
    c.register_function("mPow", 3, 3, "mPow(float, float)", |_c, a| a.f64(0).powf(a.f64(1)));
    c.register_function("mLog", 2, 2, "mLog(float)", |_c, a| a.f64(0).ln());
    c.register_function("mSin", 2, 2, "mSin(radians)", |_c, a| a.f64(0).sin());
    c.register_function("mCos", 2, 2, "mCos(radians)", |_c, a| a.f64(0).cos());
    c.register_function("mTan", 2, 2, "mTan(radians)", |_c, a| a.f64(0).tan());
    c.register_function("mAsin", 2, 2, "mAsin(float)", |_c, a| a.f64(0).asin());
    c.register_function("mAcos", 2, 2, "mAcos(float)", |_c, a| a.f64(0).acos());
    c.register_function("mAtan", 3, 3, "mAtan(y, x)", |_c, a| a.f64(0).atan2(a.f64(1)));
    c.register_function("mDegToRad", 2, 2, "mDegToRad(degrees)", |_c, a| a.f64(0).to_radians());
    c.register_function("mRadToDeg", 2, 2, "mRadToDeg(radians)", |_c, a| a.f64(0).to_degrees());
    c.register_function("mFloatLength", 3, 3, "mFloatLength(float, numDecimals)", |_c, a| {
        let n = a.i32(1).clamp(0, 9) as usize;
        format!("{:.*}", n, a.f64(0))
    });

    // ---- vectors ----
    c.register_function("VectorAdd", 3, 3, "VectorAdd(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[0] + y[0], x[1] + y[1], x[2] + y[2]])
    });
    c.register_function("VectorSub", 3, 3, "VectorSub(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[0] - y[0], x[1] - y[1], x[2] - y[2]])
    });
    c.register_function("VectorScale", 3, 3, "VectorScale(a, scalar)", |_c, a| {
        let (x, s) = (vec3(&a.str(0)), a.f64(1));
        vec_text([x[0] * s, x[1] * s, x[2] * s])
    });
    c.register_function("VectorDot", 3, 3, "VectorDot(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
    });
    c.register_function("VectorCross", 3, 3, "VectorCross(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]])
    });
    c.register_function("VectorLen", 2, 2, "VectorLen(a)", |_c, a| {
        let x = vec3(&a.str(0));
        (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
    });
    c.register_function("VectorDist", 3, 3, "VectorDist(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        let d = [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    });
    c.register_function("VectorNormalize", 2, 2, "VectorNormalize(a)", |_c, a| {
        let x = vec3(&a.str(0));
        let l = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        if l == 0.0 { vec_text([0.0, 0.0, 1.0]) } else { vec_text([x[0] / l, x[1] / l, x[2] / l]) }
    });
}
