-- Wireshark / tshark dissector for the tictac wire protocol (Protocol.md, versions 1 and 2).
-- Load: tshark -X lua_script:tools/wireshark/tictac.lua -r FILE.pcap -Y tictac
-- or copy it into Wireshark's personal Lua plugins folder (Help > About > Folders).
-- TCP: found by its "TTAC" magic on any port and reassembled across segments; UDP: port 51515
-- (discovery) and any datagram starting with the magic; the original SphereNet packet ("SpHn",
-- Protocol.md §11) on any UDP port. On a version-2 stream every frame after the handshake is
-- sealed (§4): its header is shown, its payload as "sealed, N bytes".

local p = Proto("tictac", "tictac LAN game protocol")

local types = {
  [0x01] = "HELLO", [0x02] = "ERROR", [0x03] = "PING", [0x04] = "PONG", [0x05] = "LEAVE", [0x06] = "PROOF",
  [0x10] = "INVITE", [0x11] = "ACCEPT", [0x12] = "DECLINE", [0x13] = "CANCEL",
  [0x20] = "RESET", [0x21] = "ROLL_COMMIT", [0x22] = "ROLL", [0x23] = "ROLL_ACK", [0x24] = "MOVE",
  [0x25] = "RESIGN", [0x26] = "TIME_UP", [0x28] = "RESUME",
  [0x29] = "WATCH", [0x2a] = "WATCHING", [0x2b] = "WATCH_MOVE", [0x2c] = "WATCH_END", [0x2d] = "WATCH_STOP",
  [0x2e] = "GAMES", [0x2f] = "SPECTATORS",
  [0x30] = "ANNOUNCE", [0x31] = "QUERY", [0x32] = "GOODBYE", [0x40] = "SPHERE", [0x41] = "FIELD_LEAVE",
}
local errors = {
  [1] = "malformed", [2] = "bad-magic", [3] = "unsupported-version", [4] = "frame-too-large",
  [5] = "unknown-type", [6] = "unexpected-message", [7] = "illegal-move", [8] = "commitment-mismatch",
  [9] = "roll-mismatch", [10] = "timeout", [11] = "busy", [12] = "internal-error", [13] = "bad-identity",
}
local reasons = { [0] = "declined", [1] = "busy", [2] = "no answer", [3] = "unsupported" }
local states = { [0] = "idle", [1] = "playing", [2] = "busy", [3] = "away" }
local statuses = { [0] = "ready", [1] = "resigned", [2] = "unknown", [3] = "busy", [4] = "claimed", [5] = "claim accepted", [6] = "claim refused" }
local letters = "abcdefghijkmopstuvwx" -- the front's column letters (CellName.swift)

-- Per type: tag -> { field name, kind }. Kinds: u8 u16 u32 u64 i32 id str bytes.
local fields_of = {
  [0x01] = { {"min_version", "u8"}, {"max_version", "u8"}, {"instance_id", "id"}, {"name", "str"},
             {"capabilities", "u32"}, {"public_key", "bytes"}, {"nonce", "id"}, {"ephemeral_key", "bytes"},
             {"program", "str"} },
  [0x02] = { {"error_code", "u16"}, {"message", "str"} },
  [0x03] = { {"ping_nonce", "u64"} },
  [0x04] = { {"ping_nonce", "u64"} },
  [0x06] = { {"signature", "bytes"} },
  [0x10] = { {"game_id", "id"}, {"rows", "u8"}, {"cols", "u8"}, {"k", "u8"} },
  [0x11] = { {"game_id", "id"} },
  [0x12] = { {"game_id", "id"}, {"reason", "u8"} },
  [0x13] = { {"game_id", "id"} },
  [0x21] = { {"commitment", "bytes"}, {"move_time", "u16"} },
  [0x22] = { {"secret_roll", "u32"}, {"roll_nonce", "id"} },
  [0x23] = { {"roll", "u32"} },
  [0x24] = { {"cell", "u16"} },
  [0x28] = { {"game_key", "id"}, {"moves", "u16"}, {"digest", "bytes"}, {"last_cell", "u16"}, {"status", "u8"}, {"roll_secret", "bytes"} },
  -- Spectators (§14, version 2; sealed on the wire, shown when seen in clear).
  [0x29] = { {"watch_action", "u8"}, {"watch_opponent", "id"} },
  [0x2a] = { {"o_id", "id"}, {"o_name", "str"}, {"x_id", "id"}, {"x_name", "str"}, {"rows", "u8"}, {"cols", "u8"},
             {"k", "u8"}, {"watched_cells", "bytes"}, {"move_time", "u16"}, {"game_number", "u16"} },
  [0x2b] = { {"cell", "u16"}, {"move_number", "u16"} },
  [0x2c] = { {"winner", "u8"}, {"how", "u8"} },
  [0x2d] = { {"stop_reason", "u8"} },
  [0x2e] = { {"games_list", "bytes"} },
  [0x2f] = { {"spectators_allowed", "u8"}, {"watchers", "u16"} },
  [0x30] = { {"instance_id", "id"}, {"name", "str"}, {"tcp_port", "u16"}, {"capabilities", "u32"},
             {"field_port", "u16"}, {"state", "u8"}, {"min_version", "u8"}, {"max_version", "u8"},
             {"interval_ms", "u16"}, [10] = {"presence_key", "bytes"}, [11] = {"presence_time_ms", "u64"},
             [12] = {"presence_signature", "bytes"}, [13] = {"program", "str"} },
  [0x31] = { {"instance_id", "id"} },
  [0x32] = { {"instance_id", "id"}, [10] = {"presence_key", "bytes"}, [11] = {"presence_time_ms", "u64"},
             [12] = {"presence_signature", "bytes"} },
  [0x40] = { {"instance_id", "id"}, {"sequence", "u32"}, {"x", "i32"}, {"y", "i32"}, {"rgb", "bytes"}, {"name", "str"} },
  [0x41] = { {"instance_id", "id"}, {"sequence", "u32"} },
}
local sizes = { u8 = 1, u16 = 2, u32 = 4, u64 = 8, i32 = 4, id = 16 }

local f = {
  magic = ProtoField.string("tictac.magic", "Magic"),
  version = ProtoField.uint8("tictac.version", "Version"),
  type = ProtoField.uint8("tictac.type", "Type", base.HEX, types),
  flags = ProtoField.uint16("tictac.flags", "Flags", base.HEX),
  ignorable = ProtoField.bool("tictac.flags.ignorable", "Ignorable", 16, nil, 0x0001),
  opened = ProtoField.bool("tictac.flags.opened", "Opened with a key log (tictac replay --write-plain, §12)", 16, nil, 0x8000),
  length = ProtoField.uint32("tictac.length", "Payload length"),
  field = ProtoField.bytes("tictac.field", "Field"),
  tag = ProtoField.uint8("tictac.field.tag", "Tag"),
  flen = ProtoField.uint16("tictac.field.length", "Length"),
  unknown = ProtoField.bytes("tictac.unknown", "Unknown field"),
  sealed = ProtoField.bytes("tictac.sealed", "Sealed payload (ChaCha20-Poly1305, §4)"),
  cell_name = ProtoField.string("tictac.cell_name", "Cell name"),
  rolls_shown = ProtoField.string("tictac.rolls_shown", "Rolls the players see (§8)"),
  legacy = ProtoField.bytes("tictac.spherenet", "Original SphereNet packet (§11)"),
  legacy_type = ProtoField.string("tictac.spherenet.type", "Type"),
  legacy_x = ProtoField.int32("tictac.spherenet.x", "x"),
  legacy_y = ProtoField.int32("tictac.spherenet.y", "y"),
  legacy_rgb = ProtoField.bytes("tictac.spherenet.rgb", "red, green, blue"),
}
local kinds = { u8 = ftypes.UINT8, u16 = ftypes.UINT16, u32 = ftypes.UINT32, u64 = ftypes.UINT64, i32 = ftypes.INT32 }
for _, list in pairs(fields_of) do
  for _, d in pairs(list) do
    local name, kind = d[1], d[2]
    if not f[name] then
      if kinds[kind] then
        local vs = (name == "error_code" and errors) or (name == "reason" and reasons) or (name == "state" and states)
          or (name == "status" and statuses) or nil
        local label = (name == "cell" or name == "last_cell") and name .. " (1-based; the wire holds it 0-based)"
          or name == "secret_roll" and "secret roll (half of the secret; not the roll the players see, §8)" or name
        f[name] = ProtoField.new(label, "tictac." .. name, kinds[kind], vs)
      elseif kind == "str" then
        f[name] = ProtoField.string("tictac." .. name, name)
      else
        f[name] = ProtoField.bytes("tictac." .. name, name)
      end
    end
  end
end
local list = {}
for _, v in pairs(f) do table.insert(list, v) end
p.fields = list

local e_malformed = ProtoExpert.new("tictac.malformed", "Malformed tictac frame", expert.group.MALFORMED, expert.severity.ERROR)
local e_error = ProtoExpert.new("tictac.error", "ERROR frame", expert.group.RESPONSE_CODE, expert.severity.WARN)
local e_unknown = ProtoExpert.new("tictac.unknown_field", "Field unknown to this dissector (skipped, §3)", expert.group.UNDECODED, expert.severity.NOTE)
p.experts = { e_malformed, e_error, e_unknown }

-- SHA-256 (FIPS 180-4) over a Lua string: the shown rolls are derived with it (§8).
local band, bor, bxor, bnot, rrot, rshift = bit32.band, bit32.bor, bit32.bxor, bit32.bnot, bit32.rrotate, bit32.rshift
local K256 = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}
local function sha256(msg)
  local h = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
  local bits = #msg * 8
  msg = msg .. "\128" .. string.rep("\0", (55 - #msg) % 64) .. string.char(0, 0, 0, 0,
    math.floor(bits / 2^24) % 256, math.floor(bits / 2^16) % 256, math.floor(bits / 2^8) % 256, bits % 256)
  for chunk = 1, #msg, 64 do
    local w = {}
    for i = 0, 15 do
      local a, b, c, d = msg:byte(chunk + i * 4, chunk + i * 4 + 3)
      w[i] = ((a * 256 + b) * 256 + c) * 256 + d
    end
    for i = 16, 63 do
      local s0 = bxor(rrot(w[i - 15], 7), rrot(w[i - 15], 18), rshift(w[i - 15], 3))
      local s1 = bxor(rrot(w[i - 2], 17), rrot(w[i - 2], 19), rshift(w[i - 2], 10))
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) % 2^32
    end
    local a, b, c, d, e, f_, g, hh = h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
    for i = 0, 63 do
      local t1 = (hh + bxor(rrot(e, 6), rrot(e, 11), rrot(e, 25)) + bxor(band(e, f_), band(bnot(e), g)) + K256[i + 1] + w[i]) % 2^32
      local t2 = (bxor(rrot(a, 2), rrot(a, 13), rrot(a, 22)) + bxor(band(a, b), band(a, c), band(b, c))) % 2^32
      hh, g, f_, e, d, c, b, a = g, f_, e, (d + t1) % 2^32, c, b, a, (t1 + t2) % 2^32
    end
    for i, v in ipairs({ a, b, c, d, e, f_, g, hh }) do h[i] = (h[i] + v) % 2^32 end
  end
  local out = {}
  for i = 1, 8 do out[i] = string.char(rshift(h[i], 24), band(rshift(h[i], 16), 255), band(rshift(h[i], 8), 255), band(h[i], 255)) end
  return table.concat(out)
end

local function u32_at(str, at) -- 0-based offset, big-endian
  local a, b, c, d = str:byte(at + 1, at + 4)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

-- Bytewise unsigned comparison (Lua's < on strings follows the locale).
local function bytes_before(x, y)
  for i = 1, math.min(#x, #y) do
    local a, b = x:byte(i), y:byte(i)
    if a ~= b then return a < b end
  end
  return #x < #y
end

-- Who moves first and the rolls the players see (§8), from both commitments and both
-- openings ({commit=, roll=, nonce=} per side); nil and why when they decide nothing.
local function decide_rolls(one, two)
  local function secret(o) return string.char(rshift(o.roll, 24), band(rshift(o.roll, 16), 255), band(rshift(o.roll, 8), 255), band(o.roll, 255)) .. o.nonce end
  local s1, s2 = secret(one), secret(two)
  if sha256(s1) ~= one.commit or sha256(s2) ~= two.commit then return nil, "a roll does not open its commitment" end
  if one.commit == two.commit then return nil, "equal commitments" end
  local x = {}
  for i = 1, #s1 do x[i] = string.char(bxor(s1:byte(i), s2:byte(i))) end
  local one_first_sorted = bytes_before(one.commit, two.commit)
  local c1, c2 = one_first_sorted and one.commit or two.commit, one_first_sorted and two.commit or one.commit
  local j = sha256(c1 .. c2 .. table.concat(x))
  local one_moves_first = (j:byte(1) < 0x80) == one_first_sorted
  local high = 1 + u32_at(j, 4) % 999999
  local low = u32_at(j, 8) % high
  return { one_first = one_moves_first, one_roll = one_moves_first and high or low, two_roll = one_moves_first and low or high }
end

local HEADER, MAX = 12, 16384
local tcp_stream = Field.new("tcp.stream")
local cols_of = {} -- tcp.stream -> the board's columns, from its INVITE (to name MOVE's cell)
local proved = {}  -- "stream:port" -> a version-2 PROOF went from that side: what follows is sealed
local dice = {}    -- tcp.stream -> { [side] = {commit=, roll=, nonce=} } of the game being rolled
local shown = {}   -- frame number -> the shown rolls' text, told on the ROLL that completed them
local quick = {}   -- tcp.stream -> { [side] = true } when that side's HELLO set capability bit 7 (§8)

local function stream_key(pinfo)
  local s = tcp_stream()
  return s and s.value or nil
end

-- A cell as the front names it: column letter, row from the top (a1 is the upper left).
local function cell_name(cell, cols)
  if not cols or cols < 1 or cols > #letters then return nil end
  return letters:sub(cell % cols + 1, cell % cols + 1) .. tostring(math.floor(cell / cols) + 1)
end

-- One frame at the start of tvb (exactly its bytes); on_tcp: it came in a TCP stream.
local function dissect_frame(tvb, pinfo, tree, on_tcp)
  local t = tree:add(p, tvb())
  if tvb:len() < HEADER or tvb(0, 4):string() ~= "TTAC" then
    t:add_proto_expert_info(e_malformed, "bad magic: not TTAC (§5 bad-magic)")
    return
  end
  local kind, len = tvb(5, 1):uint(), tvb(8, 4):uint()
  t:add(f.magic, tvb(0, 4)); t:add(f.version, tvb(4, 1)); t:add(f.type, tvb(5, 1))
  local fl = t:add(f.flags, tvb(6, 2)); fl:add(f.ignorable, tvb(6, 2)); fl:add(f.opened, tvb(6, 2))
  t:add(f.length, tvb(8, 4))
  local name = types[kind] or string.format("unknown type 0x%02x", kind)
  t:append_text(": " .. name)
  pinfo.cols.protocol = "TICTAC"
  local info = tostring(pinfo.cols.info)
  pinfo.cols.info:set((info ~= "" and info:find("TTAC") == nil and info:find("^%a") and not info:find("→") and info .. ", " or "") .. name)
  if len > MAX then t:add_proto_expert_info(e_malformed, "payload length above 16384 (§5 frame-too-large)"); return end
  local version, stream = tvb(4, 1):uint(), on_tcp and stream_key(pinfo) or nil
  local side = stream and (tostring(stream) .. ":" .. tostring(pinfo.src_port)) or nil
  -- Version 2 (§4): after a side's PROOF every frame it sends is sealed; HELLO, PROOF and an
  -- ERROR before the handshake stay in clear.
  -- A frame with flag 0x8000 was opened with a key log by `tictac replay --write-plain` (§12).
  local opened = bit.band(tvb(6, 2):uint(), 0x8000) ~= 0
  if opened then
    t:append_text(" (opened with the key log)")
  elseif on_tcp and version >= 2 and kind ~= 0x01 and kind ~= 0x06 and (kind ~= 0x02 or (side and proved[side])) then
    local text = string.format("sealed, %d bytes", len)
    if len > 0 then t:add(f.sealed, tvb(HEADER, math.min(len, tvb:len() - HEADER))):append_text(" (" .. text .. ")") end
    t:append_text(" (" .. text .. ")")
    pinfo.cols.info:append(" (" .. text .. ")")
    if len < 16 then t:add_proto_expert_info(e_malformed, "a sealed payload holds at least its 16-byte tag (§4)") end
    return
  end
  if on_tcp and version >= 2 and kind == 0x06 and side then proved[side] = true end
  if not types[kind] then t:add_proto_expert_info(e_malformed, "unknown type (§5 unknown-type)") end
  local spec, seen, at, stop = fields_of[kind] or {}, {}, HEADER, HEADER + len
  while at < stop do
    if stop - at < 3 then t:add_proto_expert_info(e_malformed, "field header past the payload (§3)"); return end
    local tag, flen = tvb(at, 1):uint(), tvb(at + 1, 2):uint()
    if at + 3 + flen > stop then t:add_proto_expert_info(e_malformed, "field runs past the payload (§3)"); return end
    if seen[tag] then t:add_proto_expert_info(e_malformed, "repeated tag " .. tag .. " (§3)") end
    seen[tag] = true
    local d, value = spec[tag], tvb(at + 3, flen)
    if d then
      local fname, fkind = d[1], d[2]
      if sizes[fkind] and sizes[fkind] ~= flen then
        t:add_proto_expert_info(e_malformed, fname .. " must be " .. sizes[fkind] .. " bytes, not " .. flen .. " (§3)")
      elseif fkind == "str" then
        t:add(f[fname], value, value:string(ENC_UTF_8))
      elseif fname == "cell" or fname == "last_cell" then
        -- Shown 1-based, as the summary and the players count; named on the stream's board.
        local n, cname = value:uint(), cell_name(value:uint(), stream and cols_of[stream])
        t:add(f[fname], value, n + 1)
        if cname then t:add(f.cell_name, value, cname) end
        if kind == 0x24 then
          local text = " cell " .. (n + 1) .. (cname and " (" .. cname .. ")" or "")
          t:append_text(text)
          pinfo.cols.info:append(text)
        end
      elseif flen > 0 then
        t:add(f[fname], value)
      end
      if kind == 0x02 and fname == "error_code" and flen == 2 then
        t:add_proto_expert_info(e_error, "ERROR " .. (errors[value:uint()] or value:uint()))
      end
      if kind == 0x10 and fname == "cols" and flen == 1 and stream then cols_of[stream] = value:uint() end
      if kind == 0x01 and fname == "capabilities" and flen == 4 and stream and not pinfo.visited then
        quick[stream] = quick[stream] or {}
        quick[stream][side] = band(value:uint(), 128) ~= 0
      end
      if stream and not pinfo.visited and ((kind == 0x21 and fname == "commitment" and flen == 32)
          or (kind == 0x22 and fname == "secret_roll" and flen == 4) or (kind == 0x22 and fname == "roll_nonce" and flen == 16)) then
        dice[stream] = dice[stream] or {}
        local d = dice[stream][side] or {}
        dice[stream][side] = d
        if kind == 0x21 then d.commit, d.roll, d.nonce = value:raw(), nil, nil
        elseif fname == "secret_roll" then d.roll = value:uint()
        else d.nonce = value:raw() end
      end
    else
      local u = t:add(f.unknown, tvb(at, 3 + flen))
      u:append_text(" (tag " .. tag .. ")")
      u:add_proto_expert_info(e_unknown)
    end
    at = at + 3 + flen
  end
  if kind == 0x22 and stream and not pinfo.visited then
    local mine, theirs, other = dice[stream] and dice[stream][side], nil, nil
    for k, v in pairs(dice[stream] or {}) do if k ~= side then theirs, other = v, k end end
    if mine and theirs and mine.commit and mine.roll and mine.nonce and theirs.commit and theirs.roll and theirs.nonce then
      local me, peer = tostring(pinfo.src) .. ":" .. pinfo.src_port, tostring(pinfo.dst) .. ":" .. pinfo.dst_port
      local q = quick[stream] or {}
      if q[side] and q[other] then
        -- A quick roll hashes with BLAKE2b-256 (§8), which this dissector does not compute.
        shown[pinfo.number] = "a quick roll (BLAKE2b, capability bit 7): `tictac replay` tells who moves first"
      else
        local d, why = decide_rolls(mine, theirs)
        shown[pinfo.number] = d and string.format("%s rolled %d, %s rolled %d: %s moves first and plays O", me, d.one_roll,
          peer, d.two_roll, d.one_first and me or peer) or ("the rolls decide nothing: " .. why)
      end
      dice[stream] = nil
    end
  end
  if kind == 0x22 and shown[pinfo.number] then t:add(f.rolls_shown, tvb(0, tvb:len()), shown[pinfo.number]) end
end

local function pdu_len(tvb, pinfo, offset)
  local len = tvb(offset + 8, 4):uint()
  if len > MAX then return tvb:len() - offset end -- §5: unrecoverable; show the rest as one bad frame
  return HEADER + len
end

local function tcp_pdu(tvb, pinfo, tree)
  dissect_frame(tvb, pinfo, tree, true)
  return tvb:len()
end

local function dissect_tcp(tvb, pinfo, tree)
  dissect_tcp_pdus(tvb, tree, HEADER, pdu_len, tcp_pdu, true)
  return tvb:len()
end

-- The original SphereNet packet (§11): 'SpHn', 'posn', x, y (i32), red, green, blue.
local function dissect_legacy(tvb, pinfo, tree)
  local t = tree:add(p, tvb(), "SphereNet (original packet, §11)")
  local l = t:add(f.legacy, tvb())
  pinfo.cols.protocol = "SPHERENET"
  if tvb:len() ~= 19 then
    t:add_proto_expert_info(e_malformed, "the original packet is exactly 19 bytes, not " .. tvb:len() .. " (§11)")
    return tvb:len()
  end
  l:add(f.legacy_type, tvb(4, 4)); l:add(f.legacy_x, tvb(8, 4)); l:add(f.legacy_y, tvb(12, 4)); l:add(f.legacy_rgb, tvb(16, 3))
  if tvb(4, 4):string() == "posn" then
    pinfo.cols.info:set(string.format("SphereNet position (%d, %d)", tvb(8, 4):int(), tvb(12, 4):int()))
  else
    pinfo.cols.info:set("SphereNet packet of another type (ignored, as the original does)")
  end
  return tvb:len()
end

local function dissect_udp(tvb, pinfo, tree)
  if tvb:len() >= 4 and tvb(0, 4):string() == "SpHn" then return dissect_legacy(tvb, pinfo, tree) end
  if tvb:len() < HEADER then dissect_frame(tvb, pinfo, tree); return tvb:len() end
  local len = tvb(8, 4):uint()
  dissect_frame(tvb(0, math.min(tvb:len(), HEADER + math.min(len, MAX))):tvb(), pinfo, tree)
  if HEADER + len ~= tvb:len() then
    tree:add_proto_expert_info(e_malformed, "a datagram must hold exactly one frame (§2)")
  end
  return tvb:len()
end

function p.dissector(tvb, pinfo, tree)
  if pinfo.port_type == 3 then return dissect_udp(tvb, pinfo, tree) end -- PT_UDP
  return dissect_tcp(tvb, pinfo, tree)
end

-- TCP: the connection is ours once a segment starts with the magic; then every segment is.
local function heur_tcp(tvb, pinfo, tree)
  if tvb:len() < 4 or tvb(0, 4):string() ~= "TTAC" then return false end
  pinfo.conversation = p
  dissect_tcp(tvb, pinfo, tree)
  return true
end
local function heur_udp(tvb, pinfo, tree)
  if tvb:len() < 4 or (tvb(0, 4):string() ~= "TTAC" and tvb(0, 4):string() ~= "SpHn") then return false end
  dissect_udp(tvb, pinfo, tree)
  return true
end
p:register_heuristic("tcp", heur_tcp)
p:register_heuristic("udp", heur_udp)
DissectorTable.get("udp.port"):add(51515, p)
-- "Decode As" (and tshark -d tcp.port==N,tictac) for a connection another dissector claimed.
DissectorTable.get("tcp.port"):add_for_decode_as(p)
