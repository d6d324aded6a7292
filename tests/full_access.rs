//! FULL-2: the Full access transaction and its receipt.

use serde_json::json;
use zcode::permission::mode::{ExecutionState, Mode};
use zcode::store::{
    InputStatus, NewEntry, NewSession, Store, StoreError, entry_kind, full_access_receipt_id,
    full_access_state_entry_id,
};

const SESSION: &str = "sess_1";
const PROJECT: &str = "proj";

fn store() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    for id in [SESSION, "sess_other"] {
        store
            .create_session(&NewSession {
                id: id.to_string(),
                workspace: "/w".into(),
                project_id: PROJECT.into(),
                title: None,
                model: None,
                execution: ExecutionState::default(),
            })
            .unwrap();
    }
    store
}

fn mode_of(store: &Store, input_id: &str) -> String {
    store
        .queued_input(input_id)
        .unwrap()
        .unwrap()
        .intent_mode()
        .unwrap()
        .to_string()
}

fn build() -> ExecutionState {
    ExecutionState::new(Mode::Build, false)
}

#[test]
fn full2_queued_inputs_and_session_become_yolo() {
    let mut store = store();
    store.enqueue_input(SESSION, "q1", "one", "build").unwrap();
    store.enqueue_input(SESSION, "q2", "two", "edit").unwrap();
    store
        .enqueue_input(SESSION, "q3", "three", "build")
        .unwrap();
    store
        .enqueue_input("sess_other", "o1", "other", "build")
        .unwrap();
    // q1 already runs: it is no longer queued.
    store.claim_next_input(SESSION).unwrap();

    let receipt = store
        .commit_full_access(SESSION, "perm_1", build())
        .unwrap();
    assert_eq!(receipt.state, ExecutionState::new(Mode::Yolo, false));
    assert_eq!(receipt.queue_item_ids, ["q2", "q3"]);
    assert!(!receipt.replayed);

    assert_eq!(mode_of(&store, "q1"), "build");
    assert_eq!(mode_of(&store, "q2"), "yolo");
    assert_eq!(mode_of(&store, "q3"), "yolo");
    assert_eq!(mode_of(&store, "o1"), "build");

    let session = store.get_session(SESSION).unwrap().unwrap();
    assert_eq!(session.execution, ExecutionState::new(Mode::Yolo, false));
    assert_eq!(
        store.get_session("sess_other").unwrap().unwrap().execution,
        build()
    );

    let entries = store.entries(SESSION).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].id, full_access_state_entry_id(SESSION, "perm_1"));
    assert_eq!(entries[0].kind, entry_kind::EXECUTION_STATE);
    assert_eq!(
        entries[0].payload,
        json!({"mode": "yolo", "planEnabled": false})
    );
    assert_eq!(entries[1].id, full_access_receipt_id(SESSION, "perm_1"));
    assert_eq!(entries[1].id, "sess_1:perm_1");
    assert_eq!(entries[1].kind, entry_kind::PERMISSION_FULL_ACCESS);
    assert_eq!(
        entries[1].payload,
        json!({
            "requestId": "perm_1",
            "queueItemIds": ["q2", "q3"],
            "state": {"mode": "yolo", "planEnabled": false}
        })
    );
}

#[test]
fn full2_retry_replays_the_receipt_and_leaves_later_inputs_alone() {
    let mut store = store();
    store.enqueue_input(SESSION, "q1", "one", "build").unwrap();
    let first = store
        .commit_full_access(SESSION, "perm_1", build())
        .unwrap();

    // After the commit: a new input in build, and the user goes back to edit.
    store.enqueue_input(SESSION, "q2", "two", "build").unwrap();
    store
        .save_execution_state(
            SESSION,
            "mode_2",
            ExecutionState::new(Mode::Edit, false),
            None,
        )
        .unwrap();
    let entries_before = store.entries(SESSION).unwrap().len();

    let again = store
        .commit_full_access(SESSION, "perm_1", build())
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.state, first.state);
    assert_eq!(again.queue_item_ids, ["q1"]);
    assert_eq!(mode_of(&store, "q2"), "build");
    assert_eq!(store.entries(SESSION).unwrap().len(), entries_before);
    assert_eq!(
        store.get_session(SESSION).unwrap().unwrap().execution,
        ExecutionState::new(Mode::Edit, false)
    );

    // Another request is a new commit over everything still queued.
    let second = store
        .commit_full_access(SESSION, "perm_2", build())
        .unwrap();
    assert!(!second.replayed);
    assert_eq!(second.queue_item_ids, ["q1", "q2"]);
    assert_eq!(mode_of(&store, "q2"), "yolo");
}

#[test]
fn full2_plan_flag_is_kept() {
    let mut store = store();
    let receipt = store
        .commit_full_access(SESSION, "perm_1", ExecutionState::new(Mode::Edit, true))
        .unwrap();
    assert_eq!(receipt.state, ExecutionState::new(Mode::Yolo, true));
    assert_eq!(
        store.get_session(SESSION).unwrap().unwrap().execution,
        ExecutionState::new(Mode::Yolo, true)
    );
}

#[test]
fn full2_does_not_record_a_project_mode_preference() {
    let mut store = store();
    store
        .commit_full_access(SESSION, "perm_1", build())
        .unwrap();
    assert_eq!(store.project_last_mode(PROJECT).unwrap(), None);
}

#[test]
fn full2_a_failed_commit_writes_nothing() {
    let mut store = store();
    store.enqueue_input(SESSION, "q1", "one", "build").unwrap();
    // The state entry's id is taken, so the transaction fails after the
    // queue was rewritten inside it.
    store
        .append_entry(
            SESSION,
            &NewEntry::new(
                full_access_state_entry_id(SESSION, "perm_1"),
                entry_kind::NOTIFICATION,
                json!({}),
            ),
        )
        .unwrap();
    let err = store
        .commit_full_access(SESSION, "perm_1", build())
        .unwrap_err();
    assert!(matches!(err, StoreError::DuplicateEntry(_)), "{err}");
    assert_eq!(mode_of(&store, "q1"), "build");
    assert_eq!(
        store.queued_input("q1").unwrap().unwrap().status,
        InputStatus::Queued
    );
    assert_eq!(
        store.get_session(SESSION).unwrap().unwrap().execution,
        build()
    );
    assert_eq!(store.entries(SESSION).unwrap().len(), 1);
    assert!(
        !store
            .entry_exists(&full_access_receipt_id(SESSION, "perm_1"))
            .unwrap()
    );
}

#[test]
fn full2_unknown_session_fails() {
    let mut store = store();
    let err = store
        .commit_full_access("sess_missing", "perm_1", build())
        .unwrap_err();
    assert!(matches!(err, StoreError::SessionNotFound(_)), "{err}");
}

#[test]
fn full2_a_foreign_or_malformed_receipt_is_an_error_not_a_replay() {
    let mut store = store();
    let id = full_access_receipt_id(SESSION, "perm_1");
    store
        .append_entry(
            SESSION,
            &NewEntry::new(&id, entry_kind::PERMISSION_FULL_ACCESS, json!({"bogus": 1})),
        )
        .unwrap();
    let err = store
        .commit_full_access(SESSION, "perm_1", build())
        .unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");

    let id = full_access_receipt_id(SESSION, "perm_2");
    store
        .append_entry(
            SESSION,
            &NewEntry::new(&id, entry_kind::USER_MESSAGE, json!({"text": "hi"})),
        )
        .unwrap();
    let err = store
        .commit_full_access(SESSION, "perm_2", build())
        .unwrap_err();
    assert!(matches!(err, StoreError::DuplicateEntry(_)), "{err}");
    assert_eq!(
        store.get_session(SESSION).unwrap().unwrap().execution,
        build()
    );
}
