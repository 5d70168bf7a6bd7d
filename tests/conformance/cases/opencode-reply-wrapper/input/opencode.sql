-- An OpenCode store (SPEC 2.7) made at test time, laid out as opencode-subagents/input/opencode.sql is;
-- the test builds opencode.db from this script. Task outputs that differ from the child's reply only
-- by the wrapper tool/task.ts puts around it (the newer <task id=… state=…> lines, the older task_id line
-- and <task_result> tags) and by whitespace: no subagent-reply-differs. A background call's output is
-- a notice (state running), not the reply: not compared.
CREATE TABLE `__drizzle_migrations` (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric);
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, PRIMARY KEY(`session_id`, `position`));
INSERT INTO __drizzle_migrations VALUES (1, 'h1', 1769552633000);
INSERT INTO project VALUES ('proj_1', '/work/app', 'git', NULL, NULL, NULL, 900, 900, NULL, '[]');
-- lines 4-11: messages
INSERT INTO message VALUES ('msg_r1', 'ses_root', 1000, 1000, '{"role":"user","time":{"created":1000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_r2', 'ses_root', 1100, 1900, '{"role":"assistant","time":{"created":1100,"completed":1900},"parentID":"msg_r1","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_b1', 'ses_b', 1200, 1200, '{"role":"user","time":{"created":1200},"agent":"general","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_b2', 'ses_b', 1300, 1340, '{"role":"assistant","time":{"created":1300,"completed":1340},"parentID":"msg_b1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"general","agent":"general","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_c1', 'ses_c', 1420, 1420, '{"role":"user","time":{"created":1420},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_c2', 'ses_c', 1430, 1440, '{"role":"assistant","time":{"created":1430,"completed":1440},"parentID":"msg_c1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_d1', 'ses_d', 1520, 1520, '{"role":"user","time":{"created":1520},"agent":"general","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_d2', 'ses_d', 1530, 1600, '{"role":"assistant","time":{"created":1530,"completed":1600},"parentID":"msg_d1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"general","agent":"general","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
-- lines 12-31: parts
INSERT INTO part VALUES ('prt_r01', 'msg_r1', 'ses_root', 1000, 1000, '{"type":"text","text":"Do the tests pass?"}');
INSERT INTO part VALUES ('prt_r02', 'msg_r2', 'ses_root', 1100, 1100, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_r03', 'msg_r2', 'ses_root', 1150, 1400, '{"type":"tool","callID":"call_t1","tool":"task","state":{"status":"completed","input":{"description":"run tests","prompt":"run the tests","subagent_type":"general"},"output":"<task id=\"ses_b\" state=\"completed\">\n<task_result>\nAll tests pass.\n</task_result>\n</task>","title":"run tests","metadata":{"sessionId":"ses_b"},"time":{"start":1150,"end":1400}}}');
INSERT INTO part VALUES ('prt_b01', 'msg_b1', 'ses_b', 1200, 1200, '{"type":"text","text":"run the tests"}');
INSERT INTO part VALUES ('prt_b02', 'msg_b2', 'ses_b', 1300, 1300, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_b03', 'msg_b2', 'ses_b', 1310, 1310, '{"type":"text","text":"Running them."}');
INSERT INTO part VALUES ('prt_b04', 'msg_b2', 'ses_b', 1330, 1330, '{"type":"text","text":"All   tests\npass."}');
INSERT INTO part VALUES ('prt_b05', 'msg_b2', 'ses_b', 1340, 1340, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r04', 'msg_r2', 'ses_root', 1410, 1450, '{"type":"tool","callID":"call_t2","tool":"task","state":{"status":"completed","input":{"description":"count","prompt":"count the changes","subagent_type":"explore"},"output":"task_id: ses_c (for resuming to continue this task if needed)\n\n<task_result>\n  3 files\n  changed\n</task_result>","title":"count","metadata":{"sessionId":"ses_c"},"time":{"start":1410,"end":1450}}}');
INSERT INTO part VALUES ('prt_c01', 'msg_c1', 'ses_c', 1420, 1420, '{"type":"text","text":"count the changes"}');
INSERT INTO part VALUES ('prt_c02', 'msg_c2', 'ses_c', 1430, 1430, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_c03', 'msg_c2', 'ses_c', 1435, 1435, '{"type":"text","text":"3 files changed"}');
INSERT INTO part VALUES ('prt_c04', 'msg_c2', 'ses_c', 1440, 1440, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r05', 'msg_r2', 'ses_root', 1510, 1515, '{"type":"tool","callID":"call_t3","tool":"task","state":{"status":"completed","input":{"description":"lint","prompt":"lint the code","subagent_type":"general","background":true},"output":"<task id=\"ses_d\" state=\"running\">\n<summary>Background task started</summary>\n<task_result>\nThe task is working in the background. You will be notified automatically when it finishes.\n</task_result>\n</task>","title":"lint","metadata":{"sessionId":"ses_d","background":true},"time":{"start":1510,"end":1515}}}');
INSERT INTO part VALUES ('prt_d01', 'msg_d1', 'ses_d', 1520, 1520, '{"type":"text","text":"lint the code"}');
INSERT INTO part VALUES ('prt_d02', 'msg_d2', 'ses_d', 1530, 1530, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_d03', 'msg_d2', 'ses_d', 1590, 1590, '{"type":"text","text":"No lint errors."}');
INSERT INTO part VALUES ('prt_d04', 'msg_d2', 'ses_d', 1600, 1600, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r06', 'msg_r2', 'ses_root', 1800, 1800, '{"type":"text","text":"Yes: all tests pass; 3 files changed."}');
INSERT INTO part VALUES ('prt_r07', 'msg_r2', 'ses_root', 1900, 1900, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
-- lines 32-35: sessions
INSERT INTO session VALUES ('ses_root', 'proj_1', NULL, 'tests', '/work/app', 'Do the tests pass?', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1000, 1900, NULL, NULL);
INSERT INTO session VALUES ('ses_b', 'proj_1', 'ses_root', 'run-tests', '/work/app', 'run tests (@general subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1200, 1340, NULL, NULL);
INSERT INTO session VALUES ('ses_c', 'proj_1', 'ses_root', 'count', '/work/app', 'count (@explore subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1420, 1440, NULL, NULL);
INSERT INTO session VALUES ('ses_d', 'proj_1', 'ses_root', 'lint', '/work/app', 'lint (@general subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1520, 1600, NULL, NULL);
