// The SQLite side of opening an agent's database in the browser (src/database.rs): the official
// sqlite-wasm build (@sqlite.org/sqlite-wasm, its index.mjs and sqlite3.wasm copied beside this
// file by scripts/post-build.mjs) opens a database's bytes in memory, read-only, and hands the
// rows of the engine's queries to the worker, which makes each row a record line with the
// engine's own function (sessionscope_engine::import::records::record_line), as the command line
// does. The worker (scripts/worker_loader.js) imports this module only when a database is opened.
//
// A value of a row is null, a BigInt (INTEGER), a number (REAL) or a Uint8Array (the bytes of a
// TEXT or BLOB, as SQLite holds them). An SQLite error is thrown as { code, message }: the result
// code and SQLite's own words.
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
  const bytesAt = (pointer, length) => (pointer && length > 0 ? wasm.heap8u().slice(pointer, pointer + length) : new Uint8Array(0));

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

    /** The next row of a statement, or null once there is none. */
    step(db, statement) {
      const rc = x.sqlite3_step(statement);
      if (rc === capi.SQLITE_DONE) return null;
      if (rc !== capi.SQLITE_ROW) throw failure(rc, db);
      const count = x.sqlite3_column_count(statement);
      const row = new Array(count);
      for (let i = 0; i < count; i++) {
        switch (x.sqlite3_column_type(statement, i)) {
          case SQLITE_INTEGER:
            row[i] = BigInt.asIntN(64, BigInt(x.sqlite3_column_int64(statement, i)));
            break;
          case SQLITE_FLOAT:
            row[i] = x.sqlite3_column_double(statement, i);
            break;
          case SQLITE_TEXT: {
            // The pointer first: the byte count is the text's once it is UTF-8.
            const pointer = x.sqlite3_column_text(statement, i);
            row[i] = bytesAt(pointer, x.sqlite3_column_bytes(statement, i));
            break;
          }
          case SQLITE_BLOB: {
            const pointer = x.sqlite3_column_blob(statement, i);
            row[i] = bytesAt(pointer, x.sqlite3_column_bytes(statement, i));
            break;
          }
          default:
            row[i] = null;
        }
      }
      return row;
    },

    finalize(statement) {
      x.sqlite3_finalize(statement);
    },

    close(db) {
      capi.sqlite3_close_v2(db);
    },
  };
}
