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
  [0x30] = "ANNOUNCE", [0x31] = "QUERY", [0x32] = "GOODBYE", [0x40] = "SPHERE", [0x41] = "FIELD_LEAVE",
}
local errors = {
  [1] = "malformed", [2] = "bad-magic", [3] = "unsupported-version", [4] = "frame-too-large",
  [5] = "unknown-type", [6] = "unexpected-message", [7] = "illegal-move", [8] = "commitment-mismatch",
  [9] = "roll-mismatch", [10] = "timeout", [11] = "busy", [12] = "internal-error", [13] = "bad-identity",
}
local reasons = { [0] = "declined", [1] = "busy", [2] = "no answer", [3] = "unsupported" }
local states = { [0] = "idle", [1] = "playing", [2] = "busy" }
local statuses = { [0] = "ready", [1] = "resigned", [2] = "unknown", [3] = "busy" }
local letters = "abcdefghijkmopstuvwx" -- the front's column letters (CellName.swift)

-- Per type: tag -> { field name, kind }. Kinds: u8 u16 u32 u64 i32 id str bytes.
local fields_of = {
  [0x01] = { {"min_version", "u8"}, {"max_version", "u8"}, {"instance_id", "id"}, {"name", "str"},
             {"capabilities", "u32"}, {"public_key", "bytes"}, {"nonce", "id"}, {"ephemeral_key", "bytes"} },
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
  [0x28] = { {"game_key", "id"}, {"moves", "u16"}, {"digest", "bytes"}, {"last_cell", "u16"}, {"status", "u8"} },
  [0x30] = { {"instance_id", "id"}, {"name", "str"}, {"tcp_port", "u16"}, {"capabilities", "u32"},
             {"field_port", "u16"}, {"state", "u8"}, {"min_version", "u8"}, {"max_version", "u8"},
             {"interval_ms", "u16"}, [10] = {"presence_key", "bytes"}, [11] = {"presence_time_ms", "u64"},
             [12] = {"presence_signature", "bytes"} },
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
  length = ProtoField.uint32("tictac.length", "Payload length"),
  field = ProtoField.bytes("tictac.field", "Field"),
  tag = ProtoField.uint8("tictac.field.tag", "Tag"),
  flen = ProtoField.uint16("tictac.field.length", "Length"),
  unknown = ProtoField.bytes("tictac.unknown", "Unknown field"),
  sealed = ProtoField.bytes("tictac.sealed", "Sealed payload (ChaCha20-Poly1305, §4)"),
  cell_name = ProtoField.string("tictac.cell_name", "Cell name"),
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

local HEADER, MAX = 12, 16384
local tcp_stream = Field.new("tcp.stream")
local cols_of = {} -- tcp.stream -> the board's columns, from its INVITE (to name MOVE's cell)
local proved = {}  -- "stream:port" -> a version-2 PROOF went from that side: what follows is sealed

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
  local fl = t:add(f.flags, tvb(6, 2)); fl:add(f.ignorable, tvb(6, 2))
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
  if on_tcp and version >= 2 and kind ~= 0x01 and kind ~= 0x06 and (kind ~= 0x02 or (side and proved[side])) then
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
    else
      local u = t:add(f.unknown, tvb(at, 3 + flen))
      u:append_text(" (tag " .. tag .. ")")
      u:add_proto_expert_info(e_unknown)
    end
    at = at + 3 + flen
  end
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
