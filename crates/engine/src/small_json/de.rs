//! Reading JSON into a type: a serde `Deserializer` straight over the text, as serde_json's.
//!
//! Each kind of value a type asks for is read by a method of its own, and anything else is
//! refused by one shared path ([`Deserializer::invalid`]): a type's reading then holds only the
//! branches it can take (a struct's visitor is never asked for its array form, which serde_json
//! also accepts), which keeps the code each type adds small.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, Deserializer as _, IntoDeserializer, Visitor};

use super::number::{N, Number};
use super::read::Reader;
use super::{Error, What};

/// Reads a `T` from JSON text; the text must hold that one value and nothing else.
pub fn from_slice<'a, T: de::Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, Error> {
    let mut de = Deserializer { reader: Reader::new(bytes), depth: 0 };
    let value = T::deserialize(&mut de).map_err(|error| de.reader.place(error))?;
    de.reader.end()?;
    Ok(value)
}

/// [`from_slice`] of a string.
pub fn from_str<'a, T: de::Deserialize<'a>>(text: &'a str) -> Result<T, Error> {
    from_slice(text.as_bytes())
}

/// A text being read into a type.
struct Deserializer<'de> {
    reader: Reader<'de>,
    /// Arrays and objects open around the value being read.
    depth: usize,
}

impl<'de> Deserializer<'de> {
    /// Reads an array or object's items with `read`, one level deeper.
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        let outer = self.depth;
        self.depth = self.reader.deeper(outer)?;
        self.reader.bump();
        let value = read(self);
        self.depth = outer;
        value
    }

    /// The error for a value that is not what `expected` wants, saying what it is.
    #[inline(never)]
    fn invalid(&mut self, expected: &dyn de::Expected) -> Error {
        use de::Unexpected;
        let error = |unexpected: Unexpected| <Error as de::Error>::invalid_type(unexpected, expected);
        let error = match self.reader.peek() {
            None => return self.reader.error(What::Eof),
            Some(b'n') => error(Unexpected::Unit),
            Some(b't') => error(Unexpected::Bool(true)),
            Some(b'f') => error(Unexpected::Bool(false)),
            Some(b'"') => {
                self.reader.bump();
                match self.reader.string() {
                    Ok(text) => error(Unexpected::Str(&text)),
                    Err(error) => return error,
                }
            }
            Some(b'-' | b'0'..=b'9') => match self.reader.number() {
                Ok(number) => match number.0 {
                    N::PosInt(n) => error(Unexpected::Unsigned(n)),
                    N::NegInt(n) => error(Unexpected::Signed(n)),
                    N::Float(f) => error(Unexpected::Float(f)),
                },
                Err(error) => return error,
            },
            Some(b'[') => error(Unexpected::Seq),
            Some(b'{') => error(Unexpected::Map),
            Some(_) => return self.reader.error(What::ExpectedValue),
        };
        self.reader.place(error)
    }

    /// A string, for a visitor that takes one.
    fn text<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        if self.reader.peek() != Some(b'"') {
            return Err(self.invalid(&visitor));
        }
        self.reader.bump();
        let text = self.reader.string()?;
        visit_text(text, visitor)
    }

    /// A number, for a visitor that takes one.
    fn number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        if !matches!(self.reader.peek(), Some(b'-' | b'0'..=b'9')) {
            return Err(self.invalid(&visitor));
        }
        let number = self.reader.number()?;
        visit_number(number, visitor)
    }

    /// The end of an array or object whose items the visitor stopped taking: its closing
    /// bracket, which must come now.
    fn close(&mut self, bracket: u8) -> Result<(), Error> {
        match self.reader.peek() {
            Some(b) if b == bracket => {
                self.reader.bump();
                Ok(())
            }
            Some(_) => Err(self.reader.error(What::TrailingCharacters)),
            None => Err(self.reader.error(What::Eof)),
        }
    }
}

macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.number(visitor)
        }
    )*};
}

macro_rules! texts {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.text(visitor)
        }
    )*};
}

/// Hands a string to a visitor: borrowed from the text when it can be.
fn visit_text<'de, V: Visitor<'de>>(text: Cow<'de, str>, visitor: V) -> Result<V::Value, Error> {
    match text {
        Cow::Borrowed(text) => visitor.visit_borrowed_str(text),
        Cow::Owned(text) => visitor.visit_string(text),
    }
}

/// Hands a number to a visitor as what it is: an unsigned or a negative integer, or a float.
fn visit_number<'de, V: Visitor<'de>>(number: Number, visitor: V) -> Result<V::Value, Error> {
    match number.0 {
        N::PosInt(n) => visitor.visit_u64(n),
        N::NegInt(n) => visitor.visit_i64(n),
        N::Float(f) => visitor.visit_f64(f),
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.reader.peek() {
            None => Err(self.reader.error(What::Eof)),
            Some(b'n') => {
                self.reader.literal(b"null")?;
                visitor.visit_unit()
            }
            Some(b't') => {
                self.reader.literal(b"true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.reader.literal(b"false")?;
                visitor.visit_bool(false)
            }
            Some(b'"') => {
                self.reader.bump();
                let text = self.reader.string()?;
                visit_text(text, visitor)
            }
            Some(b'-' | b'0'..=b'9') => {
                let number = self.reader.number()?;
                visit_number(number, visitor)
            }
            Some(b'[') => self.nested(|de| {
                let value = visitor.visit_seq(Items { de: &mut *de, first: true })?;
                de.close(b']')?;
                Ok(value)
            }),
            Some(b'{') => self.nested(|de| {
                let value = visitor.visit_map(Entries { de: &mut *de, first: true })?;
                de.close(b'}')?;
                Ok(value)
            }),
            Some(_) => Err(self.reader.error(What::ExpectedValue)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match self.reader.peek() {
            Some(b't') => true,
            Some(b'f') => false,
            _ => return Err(self.invalid(&visitor)),
        };
        self.reader.literal(if value { b"true" } else { b"false" })?;
        visitor.visit_bool(value)
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    texts! { deserialize_char deserialize_str deserialize_string deserialize_identifier }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.reader.peek() != Some(b'n') {
            return Err(self.invalid(&visitor));
        }
        self.reader.literal(b"null")?;
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.reader.peek() != Some(b'[') {
            return Err(self.invalid(&visitor));
        }
        self.nested(|de| {
            let value = visitor.visit_seq(Items { de: &mut *de, first: true })?;
            de.close(b']')?;
            Ok(value)
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.reader.peek() != Some(b'{') {
            return Err(self.invalid(&visitor));
        }
        self.nested(|de| {
            let value = visitor.visit_map(Entries { de: &mut *de, first: true })?;
            de.close(b'}')?;
            Ok(value)
        })
    }

    /// A struct, from an object (not from an array, which serde_json also takes).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.reader.peek() == Some(b'n') {
            self.reader.literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.reader.peek() {
            // A unit variant, by its name.
            Some(b'"') => {
                self.reader.bump();
                let name = self.reader.string()?;
                visitor.visit_enum(name.as_ref().into_deserializer())
            }
            // Any other variant: an object of one key, the variant's name, and its content.
            Some(b'{') => self.nested(|de| {
                let value = visitor.visit_enum(Variant { de: &mut *de })?;
                de.close(b'}')?;
                Ok(value)
            }),
            Some(_) => Err(self.reader.error(What::ExpectedValue)),
            None => Err(self.reader.error(What::Eof)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.reader.skip(self.depth)?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! { bytes byte_buf }
}

/// An array's items, read as the visitor asks for them.
struct Items<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let reader = &mut self.de.reader;
        match reader.next_member(self.first, b']', What::ExpectedListCommaOrEnd)? {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => return Err(reader.error(What::Eof)),
        }
        self.first = false;
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// An object's entries, read as the visitor asks for them.
struct Entries<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let reader = &mut self.de.reader;
        match reader.next_member(self.first, b'}', What::ExpectedObjectCommaOrEnd)? {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => return Err(reader.error(What::Eof)),
        }
        self.first = false;
        match reader.peek() {
            Some(b'"') => {
                reader.bump();
                let key = reader.string()?;
                seed.deserialize(Key(key)).map(Some)
            }
            Some(_) => Err(reader.error(What::KeyMustBeAString)),
            None => Err(reader.error(What::Eof)),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        self.de.reader.colon()?;
        seed.deserialize(&mut *self.de)
    }
}

/// An object's key: a string, or a number written as one (as serde_json reads keys of maps
/// whose keys are integers).
struct Key<'de>(Cow<'de, str>);

impl Key<'_> {
    fn number(&self) -> Result<Number, Error> {
        let mut reader = Reader::new(self.0.as_bytes());
        let number = match reader.peek() {
            Some(b'-' | b'0'..=b'9') => reader.number()?,
            _ => return Err(Error::new(What::InvalidNumber)),
        };
        reader.end().map_err(|_| Error::new(What::InvalidNumber))?;
        Ok(number)
    }
}

macro_rules! numeric_key {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visit_number(self.number()?, visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visit_text(self.0, visitor)
    }

    numeric_key! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.as_ref().into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        bool char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// An enum variant written as an object of one key.
struct Variant<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for Variant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let name = self.de.reader.key()?;
        let value = seed.deserialize(Key(name))?;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        self.de.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        self.de.deserialize_map(visitor)
    }
}
