use super::lines::*;

#[test]
fn content_is_classified_without_reading_its_text() {
    let l = parse(r#"{"id":"a","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c","response":{}}}]}"#).unwrap();
    assert!(l.content.only_function_responses() && !l.content.text);
    let l = parse(r#"{"id":"a","timestamp":"t","type":"user","content":[{"text":"hi"},{"functionResponse":{}}]}"#).unwrap();
    assert!(!l.content.only_function_responses() && l.content.text);
    let l = parse(r#"{"id":"a","timestamp":"t","type":"gemini","content":"  "}"#).unwrap();
    assert!(!l.content.text);
    assert!(parse(r#"{"sessionId":"s","projectHash":"p","type":"user"}"#).is_some_and(|l| !l.is_metadata()));
}

#[test]
fn tokens_count_cached_apart_and_thoughts_as_output() {
    let l = parse(r#"{"id":"a","type":"gemini","tokens":{"input":100,"output":7,"cached":60,"thoughts":3,"tool":0,"total":110}}"#).unwrap();
    let u = l.tokens.0.unwrap().usage();
    assert_eq!((u.input, u.output, u.cache_read, u.cache_write), (40, 10, 60, 0));
}

#[test]
fn a_value_inside_a_line_is_placed_by_its_offset_and_lines() {
    let text = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": \"m1\"},\n    {\n      \"id\": \"m2\"\n    }\n  ]\n}";
    let l = parse(text).unwrap();
    let list = l.messages.as_ref().unwrap();
    assert_eq!(l.place_of(list.0[0].0), (text.find("{\"id\": \"m1\"").unwrap() as u64, 3));
    assert_eq!(l.place_of(list.0[1].0).1, 4);
}
