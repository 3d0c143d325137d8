//! Reading browser files into the engine, slice by slice (never one giant string).

use js_sys::Uint8Array;
use sessionscope_engine::{Corpus, Loader};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Bytes read per slice.
pub const SLICE_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// A file to read, with the path it should be known by.
pub struct PickedFile {
    pub path: String,
    pub file: web_sys::File,
}

/// The files of a `FileList` (from a drop or a file input).
pub fn picked_files(list: &web_sys::FileList) -> Vec<PickedFile> {
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|file| {
            let relative = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty());
            PickedFile { path: relative.unwrap_or_else(|| file.name()), file }
        })
        .collect()
}

/// Reads every file into one corpus. Files are read in path order so the result does not
/// depend on the order the browser lists them in.
pub async fn read_files(mut files: Vec<PickedFile>) -> Result<Corpus, String> {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut loader = Loader::new();
    for picked in &files {
        let size = picked.file.size();
        let id = loader.add_file(&picked.path, size as u64);
        let mut offset = 0.0;
        while offset < size {
            let end = (offset + SLICE_BYTES).min(size);
            let blob = picked.file.slice_with_f64_and_f64(offset, end).map_err(js_error)?;
            let buffer = JsFuture::from(blob.array_buffer()).await.map_err(js_error)?;
            let bytes = Uint8Array::new(&buffer).to_vec();
            loader.push(id, &bytes);
            offset = end;
        }
        loader.finish_file(id);
    }
    Ok(loader.finish())
}

/// Reads the bundled example.
pub fn read_example() -> Corpus {
    let mut loader = Loader::new();
    for (path, bytes) in crate::example::FILES {
        loader.add_bytes(path, bytes);
    }
    loader.finish()
}

fn js_error(value: wasm_bindgen::JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "the file could not be read".into())
}
