// Reads WARC files with warcio.js, an independent reader, and prints one JSON line per record,
// so the C++ tests can check what bloomcrawl wrote. WARCIO_DIR names the installed package.
// Each record also carries the digests computed here, from the bytes warcio read (node's SHA-1,
// RFC 4648 base32), to compare with the ones the record states: `block_digest_computed` over the
// whole block, `payload_digest_computed` over an HTTP block's body with any chunked framing removed.
// With --cdxj first, prints instead the CDXJ lines warcio's own indexer makes of the files.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { WARCParser, CDXIndexer } = await import(pathToFileURL(path.join(process.env.WARCIO_DIR, 'dist/index.js')).href);

function sha1Base32(bytes) {
  const sha = crypto.createHash('sha1').update(bytes).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '', buffer = 0, bits = 0;
  for (const b of sha) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return 'sha1:' + out;
}

// RFC 9112 7.1, strictly: a malformed body throws, failing the test.
function dechunk(body) {
  const parts = [];
  let pos = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', pos);
    if (eol < 0) throw new Error('chunk size line not terminated');
    const size = parseInt(body.subarray(pos, eol).toString('latin1').split(';')[0].trim(), 16);
    if (Number.isNaN(size)) throw new Error('bad chunk size');
    pos = eol + 2;
    if (size === 0) return Buffer.concat(parts);
    parts.push(body.subarray(pos, pos + size));
    pos += size;
    if (body.subarray(pos, pos + 2).toString('latin1') !== '\r\n') throw new Error('chunk not followed by CRLF');
    pos += 2;
  }
}

// Each record's whole block, as warcio reads it without parsing HTTP.
async function blocks(file) {
  const out = [];
  for await (const record of new WARCParser(fs.createReadStream(file), { parseHttp: false })) {
    out.push(Buffer.from(await record.readFully(false)));
  }
  return out;
}

const args = process.argv.slice(2);
if (args[0] === '--cdxj') {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const files = args.slice(1).map((f) => ({ filename: path.basename(f), reader: fs.createReadStream(f) }));
  for await (const entry of indexer.iterIndex(files)) process.stdout.write(indexer.serializeCDXJ(entry));
  process.exit(0);
}

for (const file of args) {
  const raw = await blocks(file);
  const parser = new WARCParser(fs.createReadStream(file));
  let i = 0;
  for await (const record of parser) {
    const block = raw[i++];
    const out = {
      file: path.basename(file),
      type: record.warcType,
      id: record.warcHeader('WARC-Record-ID'),
      date: record.warcHeader('WARC-Date'),
      target: record.warcTargetURI,
      ip: record.warcHeader('WARC-IP-Address'),
      concurrent_to: record.warcHeader('WARC-Concurrent-To'),
      payload_digest: record.warcPayloadDigest,
      block_digest: record.warcHeader('WARC-Block-Digest'),
      content_length: Number(record.warcContentLength),
      block_length: block.length,
      block_digest_computed: sha1Base32(block),
      profile: record.warcHeader('WARC-Profile'),
      refers_to_uri: record.warcRefersToTargetURI,
      refers_to_date: record.warcRefersToDate,
      truncated: record.warcHeader('WARC-Truncated'),
    };
    if (record.httpHeaders) {
      out.status = record.httpHeaders.statusCode;
      out.method = record.httpHeaders.method;
      out.http_headers = Object.fromEntries(record.httpHeaders.headers);
      const headEnd = block.indexOf('\r\n\r\n');
      let body = block.subarray(headEnd + 4);
      if ((record.httpHeaders.headers.get('transfer-encoding') || '').toLowerCase().endsWith('chunked')) {
        body = dechunk(body);
      }
      out.payload_digest_computed = sha1Base32(body);
    }
    out.payload_base64 = Buffer.from(await record.readFully(false)).toString('base64');
    console.log(JSON.stringify(out));
  }
}
