//! Unit tests of `validate`, in their own file beside it.

use super::*;

#[test]
fn floats_in_messages_are_short_and_exact() {
    for (x, shown) in [
        (-1e-300, "-1e-300"),
        (1e-300, "1e-300"),
        (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        (-5e-324, "-5e-324"),
        (f64::MAX, "1.7976931348623157e308"),
        (-1e300, "-1e300"),
        (1.5, "1.5"),
        (-0.1, "-0.1"),
        (0.0001, "0.0001"),
        (0.00001, "1e-5"),
        (0.0, "0"),
        (-0.0, "-0"),
        (f64::NAN, "NaN"),
        (f64::INFINITY, "inf"),
        (f64::NEG_INFINITY, "-inf"),
        (0.1 + 0.2, "0.30000000000000004"),
    ] {
        let s = short_float(x);
        assert_eq!(s, shown);
        assert!(s.len() <= 24, "{s}");
        if x.is_finite() {
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), x.to_bits(), "{s}");
        }
    }
    let e = RequestError::BadStrength(-1e-300).to_string();
    assert_eq!(e, "strength: -1e-300 is not a number between 0 and 1");
    assert_eq!(
        RequestError::BadStrength(-1e-300).code(),
        Code::InvalidArgument
    );
}

fn case(piles: Vec<u64>, variant: i32) -> pb::Case {
    pb::Case {
        id: "c".into(),
        piles,
        variant,
        ..Default::default()
    }
}

#[test]
fn case_errors_name_field_and_pile() {
    let e = check_case(&case(vec![1, 0, 2], 0), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::ZeroPile as i32);
    assert_eq!(e.field, "piles");
    assert_eq!(e.pile_index, 2);
    assert!(e.message.contains("pile 2 is 0"), "{}", e.message);
    let e = check_case(&case(vec![1, u64::MAX], 0), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::PileTooLarge as i32);
    assert_eq!(e.pile_index, 2);
    let e = check_case(&case(vec![1; 11], 0), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::TooManyPiles as i32);
    let e = check_case(&case(vec![], 0), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::EmptyRow as i32);
    let e = check_case(&case(vec![1], 7), 10).unwrap_err();
    assert_eq!(e.field, "variant");
    let c = case(vec![1], 2);
    assert_eq!(
        check_case(&c, 10),
        Ok((Variant::Leftmost, ValidRow::new(&[1u64][..], 1).unwrap()))
    );
}

/// A case with its row in `piles_le`, in 8-byte words and
/// `piles_le_width` left at 0.
fn case_le(piles: &[u64]) -> pb::Case {
    pb::Case {
        id: "c".into(),
        piles_le: crate::wire::piles_to_le(piles, LeWidth::FULL),
        ..Default::default()
    }
}

/// A case with its row in `piles_le` words of `width` bytes.
fn case_le_width(piles: &[u64], width: usize) -> pb::Case {
    let width = LeWidth::new(width).unwrap();
    pb::Case {
        id: "c".into(),
        piles_le: crate::wire::piles_to_le(piles, width),
        piles_le_width: width.to_pb(),
        ..Default::default()
    }
}

#[test]
fn every_width_gives_the_same_row_and_errors_name_the_pile() {
    for width in 1..=8 {
        let c = case_le_width(&[3, 1, 9, 4], width);
        let (v, piles) = check_case(&c, 10).unwrap();
        assert_eq!(
            (v, &*piles),
            (Variant::TwoEnds, &[3, 1, 9, 4][..]),
            "{width}"
        );
        let e = check_case(&case_le_width(&[1, 2, 0], width), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::ZeroPile as i32);
        assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 3));
        let e = check_case(&case_le_width(&[1; 11], width), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::TooManyPiles as i32);
        assert!(e.message.contains("11 piles"), "{}", e.message);
        let shape = CaseShape::of(&case_le_width(&[1; 11], width));
        assert_eq!(shape.held_piles(), 11);
        assert_eq!(shape.cells(10, None), 0);
        assert_eq!(shape.cells(11, None), 55);
    }
    // The largest pile of 4-byte words, and one of 8-byte words beyond
    // the limit of 2^63 - 1.
    let c = case_le_width(&[u32::MAX.into(), 1], 4);
    let (_, piles) = check_case(&c, 10).unwrap();
    assert_eq!(&*piles, &[u64::from(u32::MAX), 1][..]);
    let e = check_case(&case_le_width(&[1, 1 << 63], 8), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::PileTooLarge as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
}

#[test]
fn bad_widths_and_lengths_that_do_not_fit_the_width_are_case_errors() {
    for bad in [9, 16, u32::MAX] {
        let mut c = case_le_width(&[1, 2], 4);
        c.piles_le_width = bad;
        let e = check_case(&c, 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PilesLeWidth as i32);
        assert_eq!((e.field.as_str(), e.pile_index), ("piles_le_width", 0));
        assert_eq!(
            e.message,
            format!("piles_le_width: {bad} is not a width of 1 to 8 bytes (0 means 8)")
        );
    }
    // 8 bytes of 3-byte words; 9 bytes of the default 8-byte words.
    let mut c = case_le_width(&[1, 2], 4);
    c.piles_le_width = 3;
    let e = check_case(&c, 10).unwrap_err();
    assert_eq!(
        (e.code, e.field.as_str()),
        (CaseErrorCode::PilesLeLength as i32, "piles_le")
    );
    assert!(
        e.message
            .starts_with("piles_le: 8 bytes is not a multiple of 3,"),
        "{}",
        e.message
    );
    let mut c = case_le_width(&[1, 2, 3], 3);
    c.piles_le_width = 0;
    let e = check_case(&c, 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::PilesLeLength as i32);
    // A width with the row in `piles` is ignored.
    let mut c = case(vec![3, 1, 9, 4], 0);
    c.piles_le_width = 99;
    assert!(check_case(&c, 10).is_ok());
}

#[test]
fn piles_le_gives_the_same_row_and_errors_name_it() {
    let c = case_le(&[3, 1, 9, 4]);
    let (v, piles) = check_case(&c, 10).unwrap();
    assert_eq!((v, &*piles), (Variant::TwoEnds, &[3, 1, 9, 4][..]));
    let e = check_case(&case_le(&[1, 0, 2]), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::ZeroPile as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
    assert_eq!(
        e.message,
        "piles_le: pile 2 is 0: every pile needs at least 1 stone"
    );
    let e = check_case(&case_le(&[1, u64::MAX]), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::PileTooLarge as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
    let e = check_case(&case_le(&[1; 11]), 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::TooManyPiles as i32);
    assert_eq!(e.field, "piles_le");
    assert!(e.message.contains("11 piles"), "{}", e.message);
    // Empty in both fields: the row is empty (named by the usual field).
    let e = check_case(&case_le(&[]), 10).unwrap_err();
    assert_eq!(
        (e.code, e.field.as_str()),
        (CaseErrorCode::EmptyRow as i32, "piles")
    );
}

#[test]
fn both_fields_and_bad_lengths_are_case_errors() {
    let mut c = case_le(&[1, 2]);
    c.piles = vec![1, 2];
    let e = check_case(&c, 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::BothPileFields as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 0));
    assert!(
        e.message.starts_with("piles_le: set together with piles"),
        "{}",
        e.message
    );
    for len in [1usize, 7, 9, 15, 13] {
        let c = pb::Case {
            piles_le: vec![1u8; len].into(),
            ..Default::default()
        };
        let e = check_case(&c, 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PilesLeLength as i32, "{len}");
        assert_eq!(e.field, "piles_le");
        assert!(
            e.message
                .contains(&format!("{len} bytes is not a multiple of 8")),
            "{}",
            e.message
        );
    }
    // The length is checked before the limit on piles.
    let c = pb::Case {
        piles_le: vec![1u8; 8 * 11 + 1].into(),
        ..Default::default()
    };
    let e = check_case(&c, 10).unwrap_err();
    assert_eq!(e.code, CaseErrorCode::PilesLeLength as i32);
}

#[test]
fn shapes_price_what_will_be_solved() {
    // Two-ends n(n-1)/2, leftmost n.
    assert_eq!(CaseShape::of(&case(vec![1; 10], 0)).cells(100, None), 45);
    assert_eq!(CaseShape::of(&case(vec![1; 10], 2)).cells(100, None), 10);
    // The remoteness: the factor times the verdict's for two ends, n more
    // for the leftmost variant.
    assert_eq!(
        CaseShape::of(&case(vec![1; 10], 0)).cells(100, Some(3000)),
        45 + 45 * 3000
    );
    assert_eq!(
        CaseShape::of(&case(vec![1; 10], 2)).cells(100, Some(3000)),
        20
    );
    assert_eq!(CaseShape::of(&case(vec![], 0)).cells(100, Some(3000)), 0);
    // Answered with an error: no cells, but its piles are held.
    let unknown = CaseShape::of(&case(vec![1; 10], 7));
    assert_eq!((unknown.cells(100, None), unknown.held_piles()), (0, 10));
    let mut both = case_le(&[1; 4]);
    both.piles = vec![1; 6];
    let both = CaseShape::of(&both);
    assert_eq!((both.cells(100, None), both.held_piles()), (0, 10));
    let long = CaseShape::of(&case(vec![1; 101], 0));
    assert_eq!((long.cells(100, None), long.held_piles()), (0, 101));
    assert_eq!(CaseShape::of(&case(vec![], 0)).cells(100, None), 0);
}
