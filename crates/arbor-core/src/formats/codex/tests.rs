    use super::lines::*;
    use super::links::*;
    use crate::report::Link;
    use super::*;
    use crate::ctx::Ctx;
    use crate::finding::Loc;
    use crate::wire::Raw;

    #[test]
    fn a_final_answer_is_its_payload_and_a_notification_its_status() {
        let t = "Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/x\nPayload:\nBANANA";
        assert_eq!(final_answer(t), Some("BANANA"));
        assert_eq!(final_answer("Message Type: NEW_TASK\nPayload:\nx"), None);
        let n = r#"<subagent_notification>{"agent_path":"abc","status":{"completed":"done."}}</subagent_notification>"#;
        assert_eq!(notification(n), Some(("abc".to_owned(), "done.".to_owned())));
        let n = r#"<SUBAGENT_NOTIFICATION>{"agent_id":"a1","status":{"completed":"ok"}}</subagent_notification>"#;
        assert_eq!(notification(n), Some(("a1".to_owned(), "ok".to_owned())));
        assert_eq!(notification("<subagent_notification>done</subagent_notification>"), None);
        assert_eq!(words_hash("a  b\n"), words_hash(" a b"));
        assert_ne!(words_hash("ab"), words_hash("a b"));
        // Fed raw and in pieces, a text hashes as its decoded whole does.
        let mut h = Words::default();
        assert!(h.feed_raw(Raw(r#""caf\u00e9 \ud83d\ude00\nfo""#)) && h.feed_raw(Raw(r#""o\tbar \"q\"""#)));
        assert_eq!(h.finish(), words_hash("café 😀\nfoo\tbar \"q\""));
        assert!(!Words::default().feed_raw(Raw(r#""bad \x""#)));
    }

    /// Settling again (a followed log that grew) keeps each run and tells no finding twice; a
    /// parent that arrives later is linked then.
    #[test]
    fn settling_again_extends_what_it_made_and_repeats_nothing() {
        let mut cx = Ctx::default();
        let at = |file, line| Loc { file, line };
        let (root, child, orphan) = (cx.ids.intern("root"), cx.ids.intern("child"), cx.ids.intern("orphan"));
        for s in [root, child, orphan] {
            cx.graph.session(s);
        }
        let mut c = thread(child, at(1, 1), Some(0.0));
        c.spawn_parent = Some(root);
        c.subagent = true;
        let mut o = thread(orphan, at(2, 1), Some(0.0));
        o.subagent = true;
        cx.ext::<Rollouts>().threads.extend([thread(root, at(0, 1), Some(0.0)), c, o]);
        settle(&mut cx);
        let findings = cx.findings.list.len();
        cx.ext::<Rollouts>().threads[1].last = at(1, 9);
        settle(&mut cx);
        assert_eq!(cx.findings.list.len(), findings, "no finding twice");
        let runs = &cx.graph.get(child).unwrap().runs;
        assert_eq!((runs.len(), runs[0].end), (1, Some(at(1, 9))), "the run is extended, not made again");
        assert_eq!(cx.graph.get(orphan).unwrap().runs.len(), 1);
        // The orphan's parent shows up: it gets a run under it, beside the inferred one.
        cx.ext::<Rollouts>().activities.push(Activity {
            parent: root,
            child: orphan,
            at: at(0, 5),
            time: Some(1.0),
            started: true,
            outcome: None,
            path: None,
        });
        settle(&mut cx);
        let runs = &cx.graph.get(orphan).unwrap().runs;
        assert_eq!(runs.iter().map(|r| (r.parent, r.link)).collect::<Vec<_>>(), [(None, Link::Inferred), (Some(root), Link::Activity)]);
    }

    #[test]
    fn a_malformed_or_surprising_line_says_nothing_in_the_transcript() {
        use super::super::Format;
        let lines: &[&[u8]] = &[
            b"not json",
            b"{\"type\":\"response_item\",\"payload\":7}",
            b"{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":7}}",
            b"{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"echo\"}}",
            b"\xff\xfe",
        ];
        for line in lines {
            let mut out = Vec::new();
            CodexFormat.transcript(line, &mut out);
            assert!(out.is_empty(), "{:?}: {out:?}", String::from_utf8_lossy(line));
        }
        // A call whose fields are of surprising types is still a call, with what can be read.
        let mut out = Vec::new();
        CodexFormat.transcript(br#"{"type":"response_item","payload":{"type":"function_call","name":1,"arguments":[1],"call_id":null}}"#, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].tool.as_deref(), out[0].call_id.as_deref(), out[0].json), (None, None, true));
    }

    #[test]
    fn surprising_field_types_read_as_absent() {
        let l = parse_line(r#"{"type":"session_meta","payload":{"id":5,"source":["x"],"parent_thread_id":{}}}"#)
            .expect("an object");
        let p = l.payload().unwrap();
        assert!(p.id.present() && p.id.as_str().is_none());
        assert!(p.source.0.is_none());
        assert!(parse_line("[1]").is_none());
        assert!(parse_line(r#"{"type":"event_msg","payload":"x"}"#).unwrap().payload().is_none());
    }

    #[test]
    fn a_title_skips_the_ides_context_block_before_the_prompt() {
        use crate::formats::{Format, About};
        let about = |l: &str| match CodexFormat.about(l.as_bytes()) {
            Some(About::Prompt(p)) => Some(p),
            _ => None,
        };
        let line = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<ide_opened_file>secret.rs</ide_opened_file>\nreal request"}]}}"#;
        assert_eq!(about(line).as_deref(), Some("real request"));
        let env = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/x</cwd>\n</environment_context>"}]}}"#;
        assert_eq!(about(env), None);
    }
