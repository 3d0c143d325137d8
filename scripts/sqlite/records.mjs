// The SQLite side of opening an agent's database in the browser (src/database.rs): the official
// sqlite-wasm build (@sqlite.org/sqlite-wasm, its index.mjs and sqlite3.wasm copied beside this
// file by scripts/post-build.mjs) opens a database's bytes in memory, read-only, and hands the
// rows of the engine's queries to the worker, which makes each row a record line with the
// engine's own function (sessionscope_engine::import::records::record_line), as the command line
// does. The worker (scripts/worker_loader.js) imports this module only when a database is opened.
//
// Rows come in batches, each one Uint8Array (few calls between the worker's wasm and SQLite's):
// every value of every row in column order, a tag byte then its payload: 0 NULL; 1 INTEGER, 8 bytes
// (little-endian two's complement); 2 REAL, 8 bytes (little-endian IEEE 754); 3 TEXT or BLOB, its
// length in 4 bytes (little-endian) then its bytes as SQLite holds them. An SQLite error is thrown
// as { code, message }: the result code and SQLite's own words.
import init from "./index.mjs";

// Only the in-memory database is used: the persistent storage back-ends stay off (they would
// try, and say on the console that they cannot, without cross-origin isolation).
globalThis.sqlite3ApiConfig = {
  warn: () => {},
  debug: () => {},
  log: () => {},
  disable: { vfs: { kvvfs: true, opfs: true, "opfs-vfs": true, "opfs-sahpool": true, "opfs-wl": true } },
};

let started;

/** The glue, once sqlite-wasm is fetched and compiled (once per worker). */
export function start() {
  started ??= init({ print: () => {}, printErr: () => {} }).then(glue);
  return started;
}

const SQLITE_INTEGER = 1;
const SQLITE_FLOAT = 2;
const SQLITE_TEXT = 3;
const SQLITE_BLOB = 4;

function glue(sqlite3) {
  const { capi, wasm } = sqlite3;
  const x = wasm.exports;
  const failure = (code, db) => {
    const message = db ? capi.sqlite3_errmsg(db) : capi.sqlite3_errstr(code);
    return { code, message: String(message || capi.sqlite3_errstr(code)) };
  };
  const check = (rc, db) => {
    if (rc !== 0) throw failure(rc, db);
  };
  const rethrow = (error, db) => {
    if (error && typeof error.code === "number") return error;
    const code = error && typeof error.resultCode === "number" ? error.resultCode : capi.SQLITE_ERROR;
    return db ? failure(code, db) : { code, message: String((error && error.message) || error) };
  };
  // Statements whose rows are all read.
  const finished = new Set();

  return {
    version: capi.sqlite3_libversion(),

    /** Opens `bytes` (a Uint8Array, copied into SQLite's memory) as a read-only database: its handle. */
    open(bytes) {
      const slot = wasm.pstack.pointer;
      let db = 0;
      try {
        const out = wasm.pstack.allocPtr();
        check(capi.sqlite3_open_v2(":memory:", out, capi.SQLITE_OPEN_READWRITE | capi.SQLITE_OPEN_CREATE, null));
        db = wasm.peekPtr(out);
      } catch (error) {
        if (db) capi.sqlite3_close_v2(db);
        throw rethrow(error, 0);
      } finally {
        wasm.pstack.restore(slot);
      }
      try {
        const size = bytes.length;
        const pointer = wasm.alloc(Math.max(size, 1));
        wasm.heap8u().set(bytes, pointer);
        // SQLite frees the copy when the database closes, or now if it cannot take it.
        const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_READONLY;
        check(capi.sqlite3_deserialize(db, "main", pointer, size, size, flags), db);
        return db;
      } catch (error) {
        const thrown = rethrow(error, db);
        capi.sqlite3_close_v2(db);
        throw thrown;
      }
    },

    /** Prepares `sql` on `db`: the statement's handle. */
    prepare(db, sql) {
      const slot = wasm.pstack.pointer;
      try {
        const out = wasm.pstack.allocPtr();
        check(capi.sqlite3_prepare_v2(db, sql, -1, out, null), db);
        return wasm.peekPtr(out);
      } catch (error) {
        throw rethrow(error, db);
      } finally {
        wasm.pstack.restore(slot);
      }
    },

    /** The names of a statement's columns. */
    columns(statement) {
      const count = x.sqlite3_column_count(statement);
      const names = [];
      for (let i = 0; i < count; i++) names.push(capi.sqlite3_column_name(statement, i));
      return names;
    },

    /**
     * The next rows of a statement, whole, about `bytes` of them (at least one row), as a batch;
     * an empty batch once there are none.
     */
    rows(db, statement, bytes) {
      let out = new Uint8Array(Math.max(bytes, 1024) + 1024);
      let view = new DataView(out.buffer);
      let at = 0;
      const room = (n) => {
        if (at + n <= out.length) return;
        const grown = new Uint8Array(Math.max(out.length * 2, at + n));
        grown.set(out.subarray(0, at));
        out = grown;
        view = new DataView(out.buffer);
      };
      // A statement stepped once more after its last row would start again.
      if (finished.has(statement)) return out.subarray(0, 0);
      while (at < bytes) {
        const rc = x.sqlite3_step(statement);
        if (rc === capi.SQLITE_DONE) {
          finished.add(statement);
          break;
        }
        if (rc !== capi.SQLITE_ROW) throw failure(rc, db);
        const count = x.sqlite3_column_count(statement);
        for (let i = 0; i < count; i++) {
          switch (x.sqlite3_column_type(statement, i)) {
            case SQLITE_INTEGER:
              room(9);
              out[at] = 1;
              view.setBigInt64(at + 1, BigInt.asIntN(64, BigInt(x.sqlite3_column_int64(statement, i))), true);
              at += 9;
              break;
            case SQLITE_FLOAT:
              room(9);
              out[at] = 2;
              view.setFloat64(at + 1, x.sqlite3_column_double(statement, i), true);
              at += 9;
              break;
            case SQLITE_TEXT:
            case SQLITE_BLOB: {
              // The pointer first: TEXT is then UTF-8, and the byte count its.
              const text = x.sqlite3_column_type(statement, i) === SQLITE_TEXT;
              const pointer = text ? x.sqlite3_column_text(statement, i) : x.sqlite3_column_blob(statement, i);
              const length = x.sqlite3_column_bytes(statement, i);
              room(5 + length);
              out[at] = 3;
              view.setUint32(at + 1, length, true);
              if (pointer && length > 0) out.set(wasm.heap8u().subarray(pointer, pointer + length), at + 5);
              at += 5 + length;
              break;
            }
            default:
              room(1);
              out[at] = 0;
              at += 1;
          }
        }
      }
      return out.subarray(0, at);
    },

    finalize(statement) {
      finished.delete(statement);
      x.sqlite3_finalize(statement);
    },

    close(db) {
      capi.sqlite3_close_v2(db);
    },
  };
}
