//! The label a generated module puts in front of its embedded fatbin, so that a tool reading
//! a built binary can say which module each embedded fatbin belongs to.
//!
//! Layout (all integers little-endian), immediately followed by the module's image, which
//! starts 8-byte aligned:
//!
//! ```text
//! offset  size  field
//!      0     8  magic `CUKMOD01`
//!      8     4  length of the name in bytes (UTF-8)
//!     12     4  reserved, zero
//!     16     8  length of the image that follows, in bytes
//!     24     n  the name, then NUL bytes up to a multiple of 8
//! ```
//!
//! The image is one fatbin, or (a module of several whole-program files) several fatbins one
//! after another; the image length covers them all.
//!
//! ```
//! use cuda_kernel_objects::label;
//! const LEN: usize = label::header_len("ops");
//! const HEADER: [u8; LEN] = label::header::<LEN>("ops", 4096);
//! let mut file = vec![0u8; 40];
//! file.extend_from_slice(&HEADER);
//! file.extend_from_slice(&[0u8; 4096]);
//! let found = label::find_labels(&file);
//! assert_eq!(found.len(), 1);
//! assert_eq!((found[0].name.as_str(), found[0].image_offset, found[0].image_len), ("ops", 40 + LEN, 4096));
//! ```

/// The label's first eight bytes.
pub const MAGIC: [u8; 8] = *b"CUKMOD01";

/// Bytes before the name.
const FIXED: usize = 24;

/// The longest name a label carries (4096 bytes); longer names are cut at a character
/// boundary.
const MAX_NAME: usize = 4096;

/// The size of the label for `name`: 24 bytes and the name padded to a multiple of 8.
///
/// ```
/// assert_eq!(cuda_kernel_objects::label::header_len("ops"), 32);
/// assert_eq!(cuda_kernel_objects::label::header_len("exactly8"), 32);
/// ```
pub const fn header_len(name: &str) -> usize {
    let n = name_len(name);
    FIXED + n.div_ceil(8) * 8
}

/// The name's length as stored (at most 4096 bytes, at a character boundary).
const fn name_len(name: &str) -> usize {
    let bytes = name.as_bytes();
    if bytes.len() <= MAX_NAME {
        return bytes.len();
    }
    let mut n = MAX_NAME;
    // Back to the start of a character: continuation bytes are 0b10xx_xxxx.
    while n > 0 && bytes[n] & 0xC0 == 0x80 {
        n -= 1;
    }
    n
}

/// The label of module `name` in front of an image of `image_len` bytes; `LEN` must be
/// [`header_len`]`(name)` (a const evaluation fails otherwise).
///
/// ```
/// let h = cuda_kernel_objects::label::header::<32>("ops", 100);
/// assert_eq!(&h[..8], b"CUKMOD01");
/// assert_eq!(&h[24..27], b"ops");
/// ```
pub const fn header<const LEN: usize>(name: &str, image_len: usize) -> [u8; LEN] {
    assert!(
        LEN == header_len(name),
        "label length differs from header_len(name)"
    );
    let mut out = [0u8; LEN];
    let mut i = 0;
    while i < 8 {
        out[i] = MAGIC[i];
        i += 1;
    }
    let n = name_len(name);
    let len = (n as u32).to_le_bytes();
    let image = (image_len as u64).to_le_bytes();
    i = 0;
    while i < 4 {
        out[8 + i] = len[i];
        i += 1;
    }
    i = 0;
    while i < 8 {
        out[16 + i] = image[i];
        i += 1;
    }
    let bytes = name.as_bytes();
    i = 0;
    while i < n {
        out[FIXED + i] = bytes[i];
        i += 1;
    }
    out
}

/// A label found in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The module's name.
    pub name: String,
    /// Where the label starts.
    pub offset: usize,
    /// Where the image it labels starts.
    pub image_offset: usize,
    /// The image's length.
    pub image_len: usize,
}

impl Label {
    /// Whether the bytes `offset..offset + len` of the file lie in this label's image.
    ///
    /// ```
    /// let l = cuda_kernel_objects::label::Label { name: "m".into(), offset: 0, image_offset: 32, image_len: 64 };
    /// assert!(l.covers(32, 64) && l.covers(40, 8) && !l.covers(90, 8));
    /// ```
    pub fn covers(&self, offset: usize, len: usize) -> bool {
        offset >= self.image_offset
            && offset
                .checked_add(len)
                .is_some_and(|end| end <= self.image_offset + self.image_len)
    }
}

/// Every well-formed label in `data`: the magic at an 8-byte aligned offset, a zero reserved
/// field, a UTF-8 name, zero padding, and an image that lies inside `data`. Never panics.
pub fn find_labels(data: &[u8]) -> Vec<Label> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + FIXED <= data.len() {
        if data[at..at + 8] == MAGIC
            && let Some(label) = read_at(data, at)
        {
            at = label.image_offset;
            out.push(label);
            continue;
        }
        at += 8;
    }
    out
}

fn read_at(data: &[u8], at: usize) -> Option<Label> {
    let word = |o: usize| -> Option<[u8; 4]> { data.get(at + o..at + o + 4)?.try_into().ok() };
    let n = u32::from_le_bytes(word(8)?) as usize;
    if n > MAX_NAME || u32::from_le_bytes(word(12)?) != 0 {
        return None;
    }
    let image_len: [u8; 8] = data.get(at + 16..at + 24)?.try_into().ok()?;
    let image_len = usize::try_from(u64::from_le_bytes(image_len)).ok()?;
    let padded = n.div_ceil(8) * 8;
    let name_at = at + FIXED;
    let name = std::str::from_utf8(data.get(name_at..name_at + n)?).ok()?;
    if data
        .get(name_at + n..name_at + padded)?
        .iter()
        .any(|&b| b != 0)
    {
        return None;
    }
    let image_offset = name_at + padded;
    if image_offset.checked_add(image_len)? > data.len() {
        return None;
    }
    Some(Label {
        name: name.to_owned(),
        offset: at,
        image_offset,
        image_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_reads_back_and_damage_is_ignored() {
        const LEN: usize = header_len("vec_ops");
        let h = header::<LEN>("vec_ops", 16);
        let mut data = vec![7u8; 16];
        data.extend_from_slice(&h);
        data.extend_from_slice(&[1u8; 16]);
        let found = find_labels(&data);
        assert_eq!(
            found,
            vec![Label {
                name: "vec_ops".into(),
                offset: 16,
                image_offset: 16 + LEN,
                image_len: 16
            }]
        );
        // An image running past the end, a non-zero reserved field, or truncation: no label.
        let mut long = data.clone();
        long[16 + 16] = 200;
        assert!(find_labels(&long).is_empty());
        let mut reserved = data.clone();
        reserved[16 + 12] = 1;
        assert!(find_labels(&reserved).is_empty());
        for cut in 0..data.len() {
            let _ = find_labels(&data[..cut]);
        }
    }

    #[test]
    fn long_names_are_cut_at_a_character() {
        let name = "é".repeat(MAX_NAME);
        let n = name_len(&name);
        assert!(n <= MAX_NAME && name.is_char_boundary(n));
        assert_eq!(header_len(&name), FIXED + n.div_ceil(8) * 8);
    }
}
