-- An OpenCode store (SPEC 2.7) made at test time, laid out as opencode-subagents/input/opencode.sql is;
-- the test builds opencode.db from this script. A task resumed by a second call: each call's output
-- (its task_id line and <task_result> tags, or the newer <task …> lines, aside) is compared with the
-- child's reply when that call ended; the second call received other than the child then said.
CREATE TABLE `__drizzle_migrations` (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric);
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, PRIMARY KEY(`session_id`, `position`));
INSERT INTO __drizzle_migrations VALUES (1, 'h1', 1769552633000);
INSERT INTO project VALUES ('proj_1', '/work/app', 'git', NULL, NULL, NULL, 900, 900, NULL, '[]');
-- lines 4-9: messages
INSERT INTO message VALUES ('msg_r1', 'ses_root', 1000, 1000, '{"role":"user","time":{"created":1000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_r2', 'ses_root', 1100, 1900, '{"role":"assistant","time":{"created":1100,"completed":1900},"parentID":"msg_r1","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_a1', 'ses_a', 1200, 1200, '{"role":"user","time":{"created":1200},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_a2', 'ses_a', 1300, 1340, '{"role":"assistant","time":{"created":1300,"completed":1340},"parentID":"msg_a1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_a3', 'ses_a', 1500, 1500, '{"role":"user","time":{"created":1500},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_a4', 'ses_a', 1600, 1650, '{"role":"assistant","time":{"created":1600,"completed":1650},"parentID":"msg_a3","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
-- lines 10-23: parts
INSERT INTO part VALUES ('prt_r01', 'msg_r1', 'ses_root', 1000, 1000, '{"type":"text","text":"Why does the build fail?"}');
INSERT INTO part VALUES ('prt_r02', 'msg_r2', 'ses_root', 1100, 1100, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_r03', 'msg_r2', 'ses_root', 1150, 1400, '{"type":"tool","callID":"call_t1","tool":"task","state":{"status":"completed","input":{"description":"find the test","prompt":"find the failing test","subagent_type":"explore"},"output":"task_id: ses_a (for resuming to continue this task if needed)\n\n<task_result>\nfound it: test_x fails\n</task_result>","title":"find the test","metadata":{"sessionId":"ses_a"},"time":{"start":1150,"end":1400}}}');
INSERT INTO part VALUES ('prt_a01', 'msg_a1', 'ses_a', 1200, 1200, '{"type":"text","text":"find the failing test"}');
INSERT INTO part VALUES ('prt_a02', 'msg_a2', 'ses_a', 1300, 1300, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_a03', 'msg_a2', 'ses_a', 1310, 1310, '{"type":"text","text":"found it:\ntest_x fails"}');
INSERT INTO part VALUES ('prt_a04', 'msg_a2', 'ses_a', 1340, 1340, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r04', 'msg_r2', 'ses_root', 1450, 1700, '{"type":"tool","callID":"call_t2","tool":"task","state":{"status":"completed","input":{"description":"why","prompt":"and why?","subagent_type":"explore","task_id":"ses_a"},"output":"<task id=\"ses_a\" state=\"completed\">\n<task_result>\nbecause of y\n</task_result>\n</task>","title":"why","metadata":{"sessionId":"ses_a"},"time":{"start":1450,"end":1700}}}');
INSERT INTO part VALUES ('prt_a05', 'msg_a3', 'ses_a', 1500, 1500, '{"type":"text","text":"and why?"}');
INSERT INTO part VALUES ('prt_a06', 'msg_a4', 'ses_a', 1600, 1600, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_a07', 'msg_a4', 'ses_a', 1640, 1640, '{"type":"text","text":"because of x"}');
INSERT INTO part VALUES ('prt_a08', 'msg_a4', 'ses_a', 1650, 1650, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r05', 'msg_r2', 'ses_root', 1800, 1800, '{"type":"text","text":"The build fails because test_x fails."}');
INSERT INTO part VALUES ('prt_r06', 'msg_r2', 'ses_root', 1900, 1900, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
-- lines 24-25: sessions
INSERT INTO session VALUES ('ses_root', 'proj_1', NULL, 'fix-build', '/work/app', 'Why does the build fail?', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1000, 1900, NULL, NULL);
INSERT INTO session VALUES ('ses_a', 'proj_1', 'ses_root', 'find-test', '/work/app', 'find the test (@explore subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1200, 1650, NULL, NULL);
