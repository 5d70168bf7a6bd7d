use super::*;

#[test]
fn task_results_are_read_between_their_tags() {
    assert_eq!(task_result("task_id: ses_1 (for resuming)\n\n<task_result>\nfound 3\n</task_result>"), "found 3");
    assert_eq!(task_result("plain"), "plain");
}

#[test]
fn the_store_header_and_rows_parse() {
    let header = r#"{"$db":"sqlite","user_version":0,"tables":{"message":["id","session_id","time_created","data"],"part":["id"],"session":["id"]}}"#;
    let r = row::parse(header).expect("the header parses");
    assert_eq!(r.what(), row::What::Header);
    let t = r.tables.0.as_ref().expect("tables");
    assert_eq!((t.session.0.len(), t.message.0.len(), t.part.0.len()), (1, 4, 1));
    assert_eq!(super::super::vote(header.as_bytes()).map(|f| f.id), Some("opencode"));
    let part = r#"{"$table":"part","$rowid":3,"id":"prt_1","message_id":"msg_1","session_id":"ses_1","time_created":5,"time_updated":5,"data":{"type":"step-finish","cost":0.5,"tokens":{"input":1,"output":2,"reasoning":3,"cache":{"read":4,"write":5}}}}"#;
    let r = row::parse(part).expect("a part row parses");
    assert_eq!(r.what(), row::What::Part);
    assert_eq!(r.doc().kind.as_str(), Some("step-finish"));
    assert_eq!(r.session(), Some("ses_1"));
}
