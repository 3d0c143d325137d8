//! Writing a type as JSON, compact or pretty, byte for byte as serde_json writes it: two spaces
//! an indent, `": "` after a key, empty arrays and objects as `[]` and `{}`, floats in their
//! shortest form by serde_json's own printer (`1.0`, `0.00001`, `1e-6`, `1.5e+16`), infinite
//! and NaN floats as `null`.

use std::fmt::Write as _;

use serde::ser::{self, Impossible, Serialize};

use super::{Error, What};

/// `value` as compact JSON.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    write(value, false)
}

/// `value` as pretty JSON.
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    write(value, true)
}

/// `value` as compact JSON, in bytes.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    to_string(value).map(String::into_bytes)
}

fn write<T: Serialize + ?Sized>(value: &T, pretty: bool) -> Result<String, Error> {
    let mut serializer = Serializer { out: String::new(), pretty, indent: 0, has_value: false };
    value.serialize(&mut serializer)?;
    Ok(serializer.out)
}

struct Serializer {
    out: String,
    pretty: bool,
    /// Arrays and objects open (pretty only).
    indent: usize,
    /// Whether the array or object last opened got a value (pretty only), as serde_json's
    /// pretty formatter keeps it: one flag, not one per level.
    has_value: bool,
}

impl Serializer {
    fn open(&mut self, bracket: char) {
        self.indent += 1;
        self.has_value = false;
        self.out.push(bracket);
    }

    fn close(&mut self, bracket: char) {
        self.indent -= 1;
        if self.pretty && self.has_value {
            self.newline();
        }
        self.out.push(bracket);
    }

    /// Before an item of an array or a key of an object.
    fn item(&mut self, first: bool) {
        if self.pretty {
            if !first {
                self.out.push(',');
            }
            self.newline();
        } else if !first {
            self.out.push(',');
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    /// Between a key and its value.
    fn colon(&mut self) {
        self.out.push_str(if self.pretty { ": " } else { ":" });
    }

    /// A key and the `:` after it.
    fn key(&mut self, first: bool, key: &str) {
        self.item(first);
        write_str(&mut self.out, key);
        self.colon();
    }

    /// An enum variant's content opens: `{"Variant":` and the content's own bracket.
    fn open_variant(&mut self, variant: &str, bracket: char) {
        self.open('{');
        self.key(true, variant);
        self.open(bracket);
    }
}

/// `text` as a JSON string: `"` and `\` escaped, control characters as `\n`-style escapes or
/// `\u00XX`, everything else as it is.
fn write_str(out: &mut String, text: &str) {
    out.push('"');
    let mut run = 0;
    for (i, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[run..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(&text[run..]);
    out.push('"');
}

/// An array, object or enum variant being written.
struct Compound<'a> {
    ser: &'a mut Serializer,
    first: bool,
    /// Its closing bracket.
    close: char,
    /// Whether it is a variant's content, inside an object of one key to close as well.
    variant: bool,
}

impl Compound<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.ser.item(self.first);
        self.first = false;
        value.serialize(&mut *self.ser)?;
        self.ser.has_value = true;
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.ser.key(self.first, key);
        self.first = false;
        value.serialize(&mut *self.ser)?;
        self.ser.has_value = true;
        Ok(())
    }

    fn finish(self) -> Result<(), Error> {
        self.ser.close(self.close);
        if self.variant {
            self.ser.has_value = true;
            self.ser.close('}');
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut Serializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        let _ = write!(self.out, "{v}");
        Ok(())
    }

    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        let _ = write!(self.out, "{v}");
        Ok(())
    }

    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        let _ = write!(self.out, "{v}");
        Ok(())
    }

    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        let _ = write!(self.out, "{v}");
        Ok(())
    }

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if v.is_finite() {
            self.out.push_str(zmij::Buffer::new().format_finite(v));
        } else {
            self.out.push_str("null");
        }
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if v.is_finite() {
            self.out.push_str(zmij::Buffer::new().format_finite(v));
        } else {
            self.out.push_str("null");
        }
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(&mut self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = ser::Serializer::serialize_seq(self, Some(v.len()))?;
        for b in v {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        ser::SerializeSeq::end(seq)
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.open('{');
        self.key(true, variant);
        value.serialize(&mut *self)?;
        self.has_value = true;
        self.close('}');
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        self.open('[');
        Ok(Compound { ser: self, first: true, close: ']', variant: false })
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant, '[');
        Ok(Compound { ser: self, first: true, close: ']', variant: true })
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        self.open('{');
        Ok(Compound { ser: self, first: true, close: '}', variant: false })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        self.serialize_map(None)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        self.open_variant(variant, '{');
        Ok(Compound { ser: self, first: true, close: '}', variant: true })
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.ser.item(self.first);
        self.first = false;
        key.serialize(KeySerializer { out: &mut self.ser.out })?;
        self.ser.colon();
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.ser)?;
        self.ser.has_value = true;
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// An object's key: a string, or a character, an integer or a unit variant written as one, as
/// serde_json writes them; anything else is refused.
struct KeySerializer<'a> {
    out: &'a mut String,
}

fn key_must_be_a_string() -> Error {
    Error::new(What::KeyMustBeAString)
}

macro_rules! integer_key {
    ($($method:ident: $ty:ty)*) => {$(
        fn $method(self, v: $ty) -> Result<(), Error> {
            let _ = write!(self.out, "\"{v}\"");
            Ok(())
        }
    )*};
}

impl ser::Serializer for KeySerializer<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    integer_key! {
        serialize_i8: i8 serialize_i16: i16 serialize_i32: i32 serialize_i64: i64 serialize_i128: i128
        serialize_u8: u8 serialize_u16: u16 serialize_u32: u32 serialize_u64: u64 serialize_u128: u128
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}
