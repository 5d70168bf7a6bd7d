-- An OpenCode store (SPEC 2.7), written as OpenCode's first migration (20260127222353) makes its
-- tables, in that order; the test builds opencode.db from this script. Rows in the order OpenCode
-- writes them: a part row when the part is first stored (its later states update it in place).
CREATE TABLE `__drizzle_migrations` (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric);
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, PRIMARY KEY(`session_id`, `position`));
INSERT INTO __drizzle_migrations VALUES (1, 'h1', 1769552633000);
-- lines 3-10: messages
INSERT INTO message VALUES ('msg_01', 'ses_u', 1000, 1000, '{"role":"user","time":{"created":1000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_02', 'ses_u', 1100, 1500, '{"role":"assistant","time":{"created":1100,"completed":1500},"parentID":"msg_01","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/w","root":"/w"},"cost":0,"tokens":{"input":300,"output":30,"reasoning":0,"cache":{"read":1000,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_03', 'ses_u', 2000, 2000, '{"role":"user","time":{"created":2000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_04', 'ses_u', 2100, 2300, '{"role":"assistant","time":{"created":2100,"completed":2300},"parentID":"msg_03","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/w","root":"/w"},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"error":{"name":"MessageAbortedError","data":{"message":"The operation was aborted."}}}');
INSERT INTO message VALUES ('msg_05', 'ses_u', 3000, 3000, '{"role":"user","time":{"created":3000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_06', 'ses_u', 3100, 3200, '{"role":"assistant","time":{"created":3100,"completed":3200},"parentID":"msg_05","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"compaction","agent":"compaction","summary":true,"path":{"cwd":"/w","root":"/w"},"cost":0,"tokens":{"input":2000,"output":100,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_07', 'ses_u', 4000, 4000, '{"role":"user","time":{"created":4000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_08', 'ses_u', 4100, 4200, '{"role":"assistant","time":{"created":4100},"parentID":"msg_07","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/w","root":"/w"},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}');
-- lines 11-27: parts
INSERT INTO part VALUES ('prt_01', 'msg_01', 'ses_u', 1000, 1000, '{"type":"text","text":"Rename foo to bar"}');
INSERT INTO part VALUES ('prt_02', 'msg_01', 'ses_u', 1000, 1000, '{"type":"text","synthetic":true,"text":"Called the Read tool with the following input: {\"filePath\":\"/w/a.rs\"}"}');
INSERT INTO part VALUES ('prt_03', 'msg_02', 'ses_u', 1100, 1100, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_04', 'msg_02', 'ses_u', 1110, 1110, '{"type":"reasoning","text":"Find the uses first.","time":{"start":1110,"end":1120}}');
INSERT INTO part VALUES ('prt_05', 'msg_02', 'ses_u', 1130, 1200, '{"type":"tool","callID":"call_e1","tool":"edit","state":{"status":"completed","input":{"filePath":"/w/a.rs","oldString":"fn foo()","newString":"fn bar()"},"output":"Edit applied successfully.","title":"a.rs","metadata":{},"time":{"start":1130,"end":1200}}}');
INSERT INTO part VALUES ('prt_06', 'msg_02', 'ses_u', 1210, 1210, '{"type":"step-finish","reason":"tool-calls","cost":0,"tokens":{"input":200,"output":20,"reasoning":10,"cache":{"read":900,"write":50}}}');
INSERT INTO part VALUES ('prt_07', 'msg_02', 'ses_u', 1300, 1300, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_08', 'msg_02', 'ses_u', 1400, 1400, '{"type":"text","text":"Renamed foo to bar."}');
INSERT INTO part VALUES ('prt_09', 'msg_02', 'ses_u', 1500, 1500, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":300,"output":30,"reasoning":0,"cache":{"read":1000,"write":0}}}');
INSERT INTO part VALUES ('prt_10', 'msg_03', 'ses_u', 2000, 2000, '{"type":"text","text":"Now write the tests"}');
INSERT INTO part VALUES ('prt_11', 'msg_04', 'ses_u', 2100, 2100, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_12', 'msg_04', 'ses_u', 2200, 2300, '{"type":"tool","callID":"call_w1","tool":"write","state":{"status":"error","input":{"filePath":"/w/t.rs","content":"#[test]\nfn t() {}\n"},"error":"Tool execution aborted","time":{"start":2200,"end":2300}}}');
INSERT INTO part VALUES ('prt_13', 'msg_05', 'ses_u', 3000, 3000, '{"type":"compaction","auto":true}');
INSERT INTO part VALUES ('prt_14', 'msg_06', 'ses_u', 3100, 3100, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_15', 'msg_06', 'ses_u', 3150, 3150, '{"type":"text","text":"We renamed foo to bar; the tests were not written."}');
INSERT INTO part VALUES ('prt_16', 'msg_06', 'ses_u', 3200, 3200, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":2000,"output":100,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_17', 'msg_07', 'ses_u', 4000, 4000, '{"type":"text","text":"Continue"}');
-- line 28: the session
INSERT INTO session VALUES ('ses_u', 'proj_1', NULL, 'rename', '/w', 'Rename foo', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1000, 4200, NULL, NULL);
