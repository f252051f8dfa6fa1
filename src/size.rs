//! `Size`: a width × height pair as the command line gives it, `WxH`.
use std::str::FromStr;

/// A width × height pair given as `WxH` on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// First number.
    pub width: u32,
    /// Second number.
    pub height: u32,
}

impl FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (width, height) = text
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("`{text}` is not WIDTHxHEIGHT (e.g. 257x257)"))?;
        let parse = |part: &str| {
            part.trim().parse::<u32>().map_err(|_| {
                format!("`{text}` is not WIDTHxHEIGHT with whole numbers (e.g. 257x257)")
            })
        };
        Ok(Size {
            width: parse(width)?,
            height: parse(height)?,
        })
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_width_then_height() {
        assert_eq!(
            "513x257".parse::<Size>(),
            Ok(Size {
                width: 513,
                height: 257
            })
        );
        assert_eq!(
            Size {
                width: 3,
                height: 2
            }
            .to_string(),
            "3x2"
        );
    }

    #[test]
    fn rejects_what_is_not_two_whole_numbers() {
        for bad in ["513", "axb", "5x-1", "2.5x3", ""] {
            assert!(bad.parse::<Size>().is_err(), "{bad}");
        }
    }
}
