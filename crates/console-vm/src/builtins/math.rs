//! Built-ins: math and vectors (mFloor, mSin, VectorAdd, ...).

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- math ----
    pure_fn!(c, "mFloor", 2, 2, "mFloor(float)", |_c, a| Value::Int(floor_fast(a.f64(0)) as i64));
    pure_fn!(c, "mCeil", 2, 2, "mCeil(float)", |_c, a| Value::Int(-floor_fast(-a.f64(0)) as i64));
    pure_fn!(c, "mAbs", 2, 2, "mAbs(float)", |_c, a| a.f64(0).abs());
    pure_fn!(c, "mSqrt", 2, 2, "mSqrt(float)", |_c, a| a.f64(0).sqrt());
    pure_fn!(c, "mPow", 3, 3, "mPow(float, float)", |_c, a| a.f64(0).powf(a.f64(1)));
    pure_fn!(c, "mLog", 2, 2, "mLog(float)", |_c, a| a.f64(0).ln());
    pure_fn!(c, "mSin", 2, 2, "mSin(radians)", |_c, a| a.f64(0).sin());
    pure_fn!(c, "mCos", 2, 2, "mCos(radians)", |_c, a| a.f64(0).cos());
    pure_fn!(c, "mTan", 2, 2, "mTan(radians)", |_c, a| a.f64(0).tan());
    pure_fn!(c, "mAsin", 2, 2, "mAsin(float)", |_c, a| a.f64(0).asin());
    pure_fn!(c, "mAcos", 2, 2, "mAcos(float)", |_c, a| a.f64(0).acos());
    pure_fn!(c, "mAtan", 3, 3, "mAtan(y, x)", |_c, a| a.f64(0).atan2(a.f64(1)));
    pure_fn!(c, "mDegToRad", 2, 2, "mDegToRad(degrees)", |_c, a| a.f64(0).to_radians());
    pure_fn!(c, "mRadToDeg", 2, 2, "mRadToDeg(radians)", |_c, a| a.f64(0).to_degrees());
    pure_fn!(c, "mFloatLength", 3, 3, "mFloatLength(float, numDecimals)", |_c, a| {
        let n = a.i32(1).clamp(0, 9) as usize;
        format!("{:.*}", n, a.f64(0))
    });

    // ---- vectors ----
    pure_fn!(c, "VectorAdd", 3, 3, "VectorAdd(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[0] + y[0], x[1] + y[1], x[2] + y[2]])
    });
    pure_fn!(c, "VectorSub", 3, 3, "VectorSub(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[0] - y[0], x[1] - y[1], x[2] - y[2]])
    });
    pure_fn!(c, "VectorScale", 3, 3, "VectorScale(a, scalar)", |_c, a| {
        let (x, s) = (vec3(&a.str(0)), a.f64(1));
        vec_text([x[0] * s, x[1] * s, x[2] * s])
    });
    pure_fn!(c, "VectorDot", 3, 3, "VectorDot(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
    });
    pure_fn!(c, "VectorCross", 3, 3, "VectorCross(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]])
    });
    pure_fn!(c, "VectorLen", 2, 2, "VectorLen(a)", |_c, a| {
        let x = vec3(&a.str(0));
        (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
    });
    pure_fn!(c, "VectorDist", 3, 3, "VectorDist(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        let d = [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    });
    pure_fn!(c, "VectorNormalize", 2, 2, "VectorNormalize(a)", |_c, a| {
        let x = vec3(&a.str(0));
        let l = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        if l == 0.0 { vec_text([0.0, 0.0, 1.0]) } else { vec_text([x[0] / l, x[1] / l, x[2] / l]) }
    });
}

/// `x.floor()` without the libm call (on the baseline target) where the double holds whole
/// numbers exactly around `x`: the truncation, one lower for a negative fraction.
fn floor_fast(x: f64) -> f64 {
    if x.abs() < 4.5e15 {
        let t = x as i64 as f64;
        if t > x { t - 1.0 } else { t }
    } else {
        x.floor()
    }
}

#[cfg(test)]
mod tests {
    /// `floor_fast` is `floor` (as the integer mFloor/mCeil make of it), at the edges and between.
    #[test]
    fn floor_fast_is_floor() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut cases =
            vec![0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 4.5e15, -4.5e15, 1e300, -1e300, f64::NAN];
        cases.extend([f64::INFINITY, f64::NEG_INFINITY, 4503599627370495.5, -4503599627370495.5]);
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(f64::from_bits(x));
            cases.push((x % 2_000_000) as f64 / 1000.0 - 1000.0);
        }
        for v in cases {
            assert_eq!(super::floor_fast(v) as i64, v.floor() as i64, "{v:e}");
            assert_eq!(-super::floor_fast(-v) as i64, v.ceil() as i64, "{v:e}");
        }
    }
}
