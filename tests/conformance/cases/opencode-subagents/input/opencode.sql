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
INSERT INTO project VALUES ('proj_1', '/work/app', 'git', NULL, NULL, NULL, 900, 900, NULL, '[]');
-- lines 4-15: messages
INSERT INTO message VALUES ('msg_r1', 'ses_root', 1000, 1000, '{"role":"user","time":{"created":1000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO message VALUES ('msg_r2', 'ses_root', 1100, 1900, '{"role":"assistant","time":{"created":1100,"completed":1900},"parentID":"msg_r1","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/work/app","root":"/work/app"},"cost":0.01,"tokens":{"input":100,"output":20,"reasoning":5,"cache":{"read":50,"write":10}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_a1', 'ses_a', 1200, 1200, '{"role":"user","time":{"created":1200},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_a2', 'ses_a', 1300, 1340, '{"role":"assistant","time":{"created":1300,"completed":1340},"parentID":"msg_a1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":40,"output":4,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_b1', 'ses_b', 1350, 1350, '{"role":"user","time":{"created":1350},"agent":"general","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_b2', 'ses_b', 1360, 1395, '{"role":"assistant","time":{"created":1360,"completed":1395},"parentID":"msg_b1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"general","agent":"general","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":30,"output":3,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_c1', 'ses_c', 1370, 1370, '{"role":"user","time":{"created":1370},"agent":"general","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_c2', 'ses_c', 1380, 1390, '{"role":"assistant","time":{"created":1380,"completed":1390},"parentID":"msg_c1","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"general","agent":"general","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":20,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_a3', 'ses_a', 1500, 1500, '{"role":"user","time":{"created":1500},"agent":"explore","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_a4', 'ses_a', 1600, 1650, '{"role":"assistant","time":{"created":1600,"completed":1650},"parentID":"msg_a3","modelID":"claude-haiku-4-5","providerID":"anthropic","mode":"explore","agent":"explore","path":{"cwd":"/work/app","root":"/work/app"},"cost":0,"tokens":{"input":10,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
INSERT INTO message VALUES ('msg_o1', 'ses_orphan', 2000, 2000, '{"role":"user","time":{"created":2000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
INSERT INTO message VALUES ('msg_p1', 'ses_p', 1720, 1720, '{"role":"user","time":{"created":1720},"agent":"summary","model":{"providerID":"anthropic","modelID":"claude-haiku-4-5"}}');
-- lines 16-43: parts
INSERT INTO part VALUES ('prt_r01', 'msg_r1', 'ses_root', 1000, 1000, '{"type":"text","text":"Fix the build"}');
INSERT INTO part VALUES ('prt_r02', 'msg_r2', 'ses_root', 1100, 1100, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_r03', 'msg_r2', 'ses_root', 1110, 1110, '{"type":"text","text":"Looking.","time":{"start":1110,"end":1120}}');
INSERT INTO part VALUES ('prt_r04', 'msg_r2', 'ses_root', 1150, 1400, '{"type":"tool","callID":"call_t1","tool":"task","state":{"status":"completed","input":{"description":"find the test","prompt":"find the failing test","subagent_type":"explore"},"output":"task_id: ses_a (for resuming to continue this task if needed)\n\n<task_result>\ntest_x fails\n</task_result>","title":"find the test","metadata":{"sessionId":"ses_a","model":{"modelID":"claude-haiku-4-5","providerID":"anthropic"}},"time":{"start":1150,"end":1400}}}');
INSERT INTO part VALUES ('prt_a01', 'msg_a1', 'ses_a', 1200, 1200, '{"type":"text","text":"find the failing test"}');
INSERT INTO part VALUES ('prt_a02', 'msg_a2', 'ses_a', 1300, 1300, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_a03', 'msg_a2', 'ses_a', 1310, 1310, '{"type":"tool","callID":"call_t5","tool":"task","state":{"status":"completed","input":{"description":"dig","prompt":"dig deeper","subagent_type":"general"},"output":"task_id: ses_b\n\n<task_result>\ndone b\n</task_result>","title":"dig","metadata":{"sessionId":"ses_b"},"time":{"start":1310,"end":1396}}}');
INSERT INTO part VALUES ('prt_b01', 'msg_b1', 'ses_b', 1350, 1350, '{"type":"text","text":"dig deeper"}');
INSERT INTO part VALUES ('prt_b02', 'msg_b2', 'ses_b', 1360, 1360, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_b03', 'msg_b2', 'ses_b', 1365, 1392, '{"type":"tool","callID":"call_t3","tool":"task","state":{"status":"completed","input":{"description":"deepest","prompt":"go deepest","subagent_type":"general"},"output":"task_id: ses_c\n\n<task_result>\ndone c\n</task_result>","title":"deepest","metadata":{"sessionId":"ses_c"},"time":{"start":1365,"end":1392}}}');
INSERT INTO part VALUES ('prt_c01', 'msg_c1', 'ses_c', 1370, 1370, '{"type":"text","text":"go deepest"}');
INSERT INTO part VALUES ('prt_c02', 'msg_c2', 'ses_c', 1380, 1380, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_c03', 'msg_c2', 'ses_c', 1385, 1385, '{"type":"text","text":"done c"}');
INSERT INTO part VALUES ('prt_c04', 'msg_c2', 'ses_c', 1390, 1390, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":20,"output":2,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_b04', 'msg_b2', 'ses_b', 1393, 1393, '{"type":"text","text":"done b"}');
INSERT INTO part VALUES ('prt_b05', 'msg_b2', 'ses_b', 1395, 1395, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":30,"output":3,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_a04', 'msg_a2', 'ses_a', 1397, 1397, '{"type":"text","text":"test_x fails"}');
INSERT INTO part VALUES ('prt_a05', 'msg_a2', 'ses_a', 1398, 1398, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":40,"output":4,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r05', 'msg_r2', 'ses_root', 1450, 1700, '{"type":"tool","callID":"call_t2","tool":"task","state":{"status":"completed","input":{"description":"why","prompt":"and why?","subagent_type":"explore","task_id":"ses_a"},"output":"task_id: ses_a (for resuming to continue this task if needed)\n\n<task_result>\nbecause y\n</task_result>","title":"why","metadata":{"sessionId":"ses_a"},"time":{"start":1450,"end":1700}}}');
INSERT INTO part VALUES ('prt_a06', 'msg_a3', 'ses_a', 1500, 1500, '{"type":"text","text":"and why?"}');
INSERT INTO part VALUES ('prt_a07', 'msg_a4', 'ses_a', 1600, 1600, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_a08', 'msg_a4', 'ses_a', 1640, 1640, '{"type":"text","text":"because y"}');
INSERT INTO part VALUES ('prt_a09', 'msg_a4', 'ses_a', 1650, 1650, '{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO part VALUES ('prt_r06', 'msg_r2', 'ses_root', 1750, 1760, '{"type":"tool","callID":"call_t4","tool":"task","state":{"status":"completed","input":{"description":"gone","prompt":"x","subagent_type":"general"},"output":"task_id: ses_gone\n\n<task_result>\nok\n</task_result>","title":"gone","metadata":{"sessionId":"ses_gone"},"time":{"start":1750,"end":1760}}}');
INSERT INTO part VALUES ('prt_r07', 'msg_r2', 'ses_root', 1800, 1800, '{"type":"text","text":"Fixed: test_x failed because y."}');
INSERT INTO part VALUES ('prt_r08', 'msg_r2', 'ses_root', 1900, 1900, '{"type":"step-finish","reason":"stop","cost":0.01,"tokens":{"input":100,"output":20,"reasoning":5,"cache":{"read":50,"write":10}}}');
INSERT INTO part VALUES ('prt_o01', 'msg_o1', 'ses_orphan', 2000, 2000, '{"type":"text","text":"left alone"}');
INSERT INTO part VALUES ('prt_p01', 'msg_p1', 'ses_p', 1720, 1720, '{"type":"text","text":"summarize"}');
-- lines 44-49: sessions; line 50 the todo
INSERT INTO session VALUES ('ses_root', 'proj_1', NULL, 'fix-build', '/work/app', 'Fix the build', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1000, 1900, NULL, NULL);
INSERT INTO session VALUES ('ses_a', 'proj_1', 'ses_root', 'find-test', '/work/app', 'find the test (@explore subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1200, 1650, NULL, NULL);
INSERT INTO session VALUES ('ses_b', 'proj_1', 'ses_a', 'dig', '/work/app', 'dig (@general subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1350, 1395, NULL, NULL);
INSERT INTO session VALUES ('ses_c', 'proj_1', 'ses_b', 'deepest', '/work/app', 'deepest (@general subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1370, 1390, NULL, NULL);
INSERT INTO session VALUES ('ses_orphan', 'proj_1', 'ses_missing', 'alone', '/work/app', 'alone', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2000, 2000, NULL, NULL);
INSERT INTO session VALUES ('ses_p', 'proj_1', 'ses_root', 'sum', '/work/app', 'summary (@summary subagent)', '1.1.50', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1720, 1720, NULL, NULL);
INSERT INTO todo VALUES ('ses_root', 'fix it', 'completed', 'high', 0, 1000, 1900);
