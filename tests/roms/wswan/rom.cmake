# --- WonderSwan: 256 KiB, all assembly (nasm, 80186 code) -----------------------------------
# Included by ../CMakeLists.txt (rom_dir, obj_dir and the list `roms` come from there).
# assemble.cmake runs nasm twice to put the byte sum in the header.
if(FRAMELOCK_NASM)
    set(wswan_dir ${CMAKE_CURRENT_SOURCE_DIR}/wswan)
    set(wswan_rom ${rom_dir}/framelock_test.ws)
    file(MAKE_DIRECTORY ${obj_dir}/wswan)
    add_custom_command(
        OUTPUT ${wswan_rom}
        COMMAND ${CMAKE_COMMAND} -DNASM=${FRAMELOCK_NASM} -DSOURCE=${wswan_dir}/framelock_test.asm
                -DOUTPUT=${wswan_rom} -DWORK=${obj_dir}/wswan -P ${wswan_dir}/assemble.cmake
        DEPENDS ${wswan_dir}/framelock_test.asm ${wswan_dir}/assemble.cmake
        WORKING_DIRECTORY ${obj_dir}/wswan
        COMMENT "Assembling WonderSwan test ROM framelock_test.ws"
        VERBATIM)
    list(APPEND roms ${wswan_rom})
    set(FRAMELOCK_TEST_WSWAN_ROM ${wswan_rom} CACHE INTERNAL "WonderSwan test ROM (empty: not built)")
else()
    message(STATUS "nasm not found: the WonderSwan test ROM is not built and the tests needing it "
                   "will be skipped (Debian: apt-get install nasm).")
endif()
